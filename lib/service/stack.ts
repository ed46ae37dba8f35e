// The services of a program, stopped in the reverse order of their start: a service is stopped only once
// the ones started after it, which may feed it or read from it, are. What stops but is not a service (a
// metadata source, a reloadable slot) takes its place in the order too.
import type { Logger } from '../telemetry/logger.js';

export interface Stoppable {
  readonly name: string;
  stop(): Promise<void>;
}

export class ServiceStack {
  readonly #started: Stoppable[] = [];

  constructor(private readonly logger: Logger) {}

  /** Starts the service; once it runs, it is stopped by stopAll (a failed start cleans up after itself). */
  async start<S extends Stoppable & { start(): Promise<void> }>(service: S): Promise<S> {
    await service.start();
    this.#started.push(service);
    return service;
  }

  /** Something already running, stopped in its place in the order. */
  push(stoppable: Stoppable): void {
    this.#started.push(stoppable);
  }

  /** Stops everything, last started first; a failing stop is logged and the others stop all the same. */
  async stopAll(): Promise<void> {
    for (const s of this.#started.splice(0).reverse()) {
      await s.stop().catch((err: unknown) => this.logger.error({ err, service: s.name }, `${s.name} did not stop cleanly`));
    }
  }
}
