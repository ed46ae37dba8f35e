// What a service's thread (service-host.ts) and the thread that runs it (threaded-service.ts) call on
// each other (peer.ts): the owner runs the service's lifecycle and reads its metrics; the service's
// thread pushes each change of its state and readiness, so that the owner answers readiness() at once,
// as a service in its own thread does, and tells the owner when the service failed.
import type { Readiness, ServiceState } from '../service/lifecycle.js';

export interface Status {
  readonly state: ServiceState;
  readonly readiness: Readiness;
}

/**
 * Answered by the service's thread, beside the service's own calls (HostedService.calls): start(log level,
 * niceness) → PriorityChange, stop(), metrics(), logLevel(level). The thread's logger follows the owner's level (`antctl log-level`).
 */
export const SERVICE_CALLS = { start: 'start', stop: 'stop', metrics: 'metrics', logLevel: 'logLevel' } as const;

/** Answered by the owner: status(Status), failed(WireError). */
export const OWNER_CALLS = { status: 'status', failed: 'failed' } as const;
