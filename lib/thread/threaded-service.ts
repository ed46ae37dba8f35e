// A service on a worker thread, seen from the thread that runs it (service-host.ts is the other side):
// a Service like any other, so the supervisor, the service stack and the readiness checks treat it as
// they treat one in their own thread. start() starts the thread and the service in it; stop() stops the
// service, then ends the thread. A thread that dies (an uncaught error, out of memory) fails the service,
// and its supervisor makes a new one. While it runs, /metrics merges the thread's metrics with this
// thread's (lib/telemetry/metrics.ts).
import type { TransferListItem, Worker } from 'node:worker_threads';
import { FlowaggError, errorMessage } from '../errors.js';
import { Lifecycle, type Readiness, type ServiceState } from '../service/lifecycle.js';
import type { Service } from '../service/service.js';
import { type Logger, rootLogger } from '../telemetry/logger.js';
import { type ThreadMetrics, addMetricsSource } from '../telemetry/metrics.js';
import { startWorker } from './boot.js';
import { THREAD_EXITED, THREAD_STATE } from './errors.js';
import { type Endpoint, Peer } from './peer.js';
import type { PriorityChange } from './priority.js';
import { OWNER_CALLS, SERVICE_CALLS, type Status } from './protocol.js';
import { type WireError, fromWire } from './wire-error.js';

export interface ThreadSpec {
  /** For logs and readiness: `processor-1`. */
  readonly name: string;
  /** The worker's module (import.meta.resolve('./entry.js')): its main (boot.ts) calls hostService(). */
  readonly entry: string;
  /** At start: what the thread's main is given, and what this thread serves it (a log over a port, say). */
  readonly open: () => ThreadResources;
  /** How much lower the thread's CPU priority is than this thread's, in nice steps (priority.ts); 0 if absent. */
  readonly niceness?: number;
}

export interface ThreadResources {
  readonly data: unknown;
  readonly transfer?: readonly TransferListItem[];
  /** Once the thread ended, however it ended. */
  readonly release?: () => Promise<void>;
}

/** What each running thread is told when this thread's log level changes; one logger listener serves them all. */
const levelFollowers = new Set<(level: string) => void>();
const tellLevel = (level: string) => levelFollowers.forEach((follow) => follow(level));

/** Tells `follow` each change of this thread's log level until the returned function is called. */
function followLevel(follow: (level: string) => void): () => void {
  // One listener, not one per thread: past ten, Node warns of a leak (a processor may run 256 threads).
  if (levelFollowers.size === 0) rootLogger.on('level-change', tellLevel);
  levelFollowers.add(follow);
  return () => {
    levelFollowers.delete(follow);
    if (levelFollowers.size === 0) rootLogger.off('level-change', tellLevel);
  };
}

export class ThreadedService implements Service {
  readonly name: string;
  readonly #spec: ThreadSpec;
  readonly #lifecycle: Lifecycle;
  readonly #logger: Logger;
  #worker: Worker | undefined;
  #peer: Peer | undefined;
  #readiness: Readiness = { ready: false, detail: 'starting' };
  #removeMetrics = () => {};
  #ended: Promise<void> = Promise.resolve();

  constructor(spec: ThreadSpec, logger: Logger) {
    this.name = spec.name;
    this.#spec = spec;
    this.#logger = logger;
    this.#lifecycle = new Lifecycle(spec.name, THREAD_STATE, logger);
  }

  get state(): ServiceState {
    return this.#lifecycle.state;
  }

  start(): Promise<void> {
    return this.#lifecycle.start(async () => {
      const resources = this.#spec.open();
      const worker = startWorker(new URL(this.#spec.entry), resources.data, resources.transfer);
      let exited: FlowaggError | undefined;
      const peer = new Peer(worker as unknown as Endpoint, {
        [OWNER_CALLS.status]: (status: Status) => void (this.#readiness = status.readiness),
        [OWNER_CALLS.failed]: (error: WireError) => this.#lifecycle.fail(fromWire(error)),
      }, () => exited!);
      this.#worker = worker;
      this.#peer = peer;
      // The thread logs at this thread's level, changed at run time too (PUT /loglevel). A call that finds
      // the thread gone fails with it, which its exit reports.
      const unfollow = followLevel((level) => void peer.call(SERVICE_CALLS.logLevel, [level]).catch(() => {}));
      this.#ended = new Promise<void>((resolve) => worker.once('exit', (code) => {
        unfollow();
        this.#worker = undefined;
        exited = new FlowaggError(THREAD_EXITED, `the thread of ${this.name} ended (exit code ${code})`, { context: { service: this.name, exitCode: code } });
        peer.end();
        this.#removeMetrics();
        this.#lifecycle.fail(exited);
        const released = resources.release?.().catch((e: unknown) => this.#logger.warn({ err: errorMessage(e) }, `${this.name}: releasing what its thread used failed`));
        void Promise.resolve(released).then(resolve);
      }));
      worker.on('error', (err) => this.#logger.error({ err }, `${this.name}: its thread threw`));
      const priority = await peer.call<PriorityChange>(SERVICE_CALLS.start, [rootLogger.level, this.#spec.niceness ?? 0]);
      if (priority.changed) this.#logger.info({ niceness: priority.niceness }, `${this.name}: its thread runs at nice ${priority.niceness}`);
      else if (this.#spec.niceness) this.#logger.info(`${this.name}: its thread keeps its priority (${priority.reason})`);
      this.#removeMetrics = addMetricsSource(() => peer.call<ThreadMetrics>(SERVICE_CALLS.metrics));
    }, () => this.#end());
  }

  stop(): Promise<void> {
    return this.#lifecycle.stop(async () => {
      try {
        // A thread that ended already (the service failed with it) has nothing left to stop.
        if (this.#worker !== undefined) await this.#peer?.call(SERVICE_CALLS.stop);
      } finally {
        await this.#end();
      }
    });
  }

  readiness(): Readiness {
    return this.#lifecycle.readiness(() => this.#readiness);
  }

  onFailure(listener: (err: unknown) => void): void {
    this.#lifecycle.onFailure(listener);
  }

  /** One of the service's own calls (HostedService.calls), answered by its thread. */
  async call<T>(method: string, ...args: readonly unknown[]): Promise<T> {
    this.#lifecycle.guard(method, ['running']);
    return this.#peer!.call<T>(method, args);
  }

  async #end(): Promise<void> {
    await this.#worker?.terminate();
    await this.#ended;
  }
}
