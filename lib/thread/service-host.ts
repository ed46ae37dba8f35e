// The worker-thread side of a service on a thread (threaded-service.ts is the owner's side): makes the
// service when told to start, runs its lifecycle as the owner calls it, answers the service's own calls,
// pushes each change of its state and readiness, and tells the owner when it fails. The service is the
// same object it is in one thread; only its caller is across the port.
import { parentPort } from 'node:worker_threads';
import type { Service } from '../service/service.js';
import { rootLogger } from '../telemetry/logger.js';
import { registry } from '../telemetry/metrics.js';
import type { Handlers } from './calls.js';
import { type Endpoint, Peer } from './peer.js';
import { type PriorityChange, lowerThreadPriority } from './priority.js';
import { OWNER_CALLS, SERVICE_CALLS, type Status } from './protocol.js';
import { toWire } from './wire-error.js';

export interface HostedService {
  readonly service: Service;
  /** The service's calls beyond its lifecycle (a processor's /flowrecords, say), by method name. */
  readonly calls?: Handlers;
  /** After the service stopped: what it was given to run with (a log, informers). */
  readonly close?: () => Promise<void>;
}

/** How often the state and readiness are compared with what the owner was told last. */
const STATUS_INTERVAL_MS = 250;

export function hostService(create: () => Promise<HostedService>): void {
  let hosted: HostedService | undefined;
  let told = '';
  const tell = () => {
    if (hosted === undefined) return;
    const status: Status = { state: hosted.service.state, readiness: hosted.service.readiness() };
    const text = JSON.stringify(status);
    if (text !== told) peer.tell(OWNER_CALLS.status, [status]);
    told = text;
  };
  const timer = setInterval(tell, STATUS_INTERVAL_MS);
  // The service's own calls are added once it is made; until then only its lifecycle answers.
  const handlers: Record<string, Handlers[string]> = {
    [SERVICE_CALLS.start]: async (level: string, niceness: number): Promise<PriorityChange> => {
      rootLogger.level = level;
      const priority = lowerThreadPriority(niceness);
      const h = await create();
      hosted = h;
      Object.assign(handlers, h.calls);
      h.service.onFailure((err) => peer.tell(OWNER_CALLS.failed, [toWire(err)]));
      try {
        await h.service.start();
      } finally {
        tell();
      }
      return priority;
    },
    [SERVICE_CALLS.stop]: async () => {
      clearInterval(timer);
      try {
        await hosted?.service.stop();
      } finally {
        await hosted?.close?.();
        tell();
      }
    },
    [SERVICE_CALLS.metrics]: () => registry.getMetricsAsJSON(),
    [SERVICE_CALLS.logLevel]: (level: string) => void (rootLogger.level = level),
  };
  const peer = new Peer(parentPort as unknown as Endpoint, handlers, () => new Error('the owner thread is gone'));
}
