// Keeps a service running: when it fails at runtime (lifecycle.ts's fail()), the supervisor stops it,
// waits a jittered backoff and starts a new one made by the same factory, in place; readiness is false
// meanwhile. More than maxRestarts failures within windowMs, or a restart that cannot even start past
// that, and it gives up: its own failure listeners hear it (serve exits non-zero, and Kubernetes
// restarts the Pod: the log holds what was committed, so a new process resumes from there).
import { errorMessage } from '../errors.js';
import { Backoff, type BackoffPolicy, sleep } from '../retry.js';
import type { Logger } from '../telemetry/logger.js';
import type { Readiness, ServiceState } from './lifecycle.js';
import type { Service } from './service.js';

export interface SupervisionPolicy {
  readonly backoff: BackoffPolicy;
  /** Restarts allowed within windowMs; the failure after them ends the process. */
  readonly maxRestarts: number;
  readonly windowMs: number;
}

export interface SupervisorDeps {
  readonly logger: Logger;
  /** From the configuration's `supervision` section (config.ts). */
  readonly policy: SupervisionPolicy;
  readonly now?: () => number;
}

type Phase =
  | { readonly kind: 'supervising' }
  | { readonly kind: 'restarting'; readonly error: unknown; readonly attempt: number }
  | { readonly kind: 'gave-up'; readonly error: unknown }
  | { readonly kind: 'stopped' };

export class Supervisor<S extends Service> implements Service {
  readonly #create: () => S;
  readonly #deps: SupervisorDeps;
  readonly #policy: SupervisionPolicy;
  readonly #backoff: Backoff;
  readonly #listeners: ((err: unknown) => void)[] = [];
  readonly #abort = new AbortController();
  /** When the failures within the window happened. */
  #failures: number[] = [];
  #phase: Phase = { kind: 'supervising' };
  #service: S;
  #restart: Promise<void> = Promise.resolve();

  constructor(create: () => S, deps: SupervisorDeps) {
    this.#create = create;
    this.#deps = deps;
    this.#policy = deps.policy;
    this.#backoff = new Backoff(this.#policy.backoff);
    this.#service = this.#watch(create());
  }

  get name(): string {
    return this.#service.name;
  }

  /** The service running now (a new one after each restart). */
  get current(): S {
    return this.#service;
  }

  get state(): ServiceState {
    return this.#phase.kind === 'restarting' ? 'failed' : this.#service.state;
  }

  /** The first start is not supervised: a service that cannot start at all fails the program's start. */
  async start(): Promise<void> {
    await this.#service.start();
  }

  async stop(): Promise<void> {
    this.#phase = { kind: 'stopped' };
    this.#abort.abort();
    await this.#restart;
    await this.#service.stop();
  }

  readiness(): Readiness {
    const phase = this.#phase;
    if (phase.kind === 'restarting') return { ready: false, detail: `${this.name} failed (${errorMessage(phase.error)}); restart ${phase.attempt} of ${this.#policy.maxRestarts}` };
    if (phase.kind === 'gave-up') return { ready: false, detail: `${this.name} failed ${this.#failures.length} times within ${this.#policy.windowMs} ms: ${errorMessage(phase.error)}` };
    return this.#service.readiness();
  }

  onFailure(listener: (err: unknown) => void): void {
    this.#listeners.push(listener);
  }

  #watch(service: S): S {
    service.onFailure((err) => {
      if (service === this.#service) this.#restart = this.#recover(err);
    });
    return service;
  }

  async #recover(err: unknown): Promise<void> {
    const { logger, now = Date.now } = this.#deps;
    for (let error = err; this.#phase.kind !== 'stopped';) {
      const at = now();
      this.#failures = [...this.#failures.filter((t) => at - t < this.#policy.windowMs), at];
      if (this.#failures.length === 1) this.#backoff.reset();
      if (this.#failures.length > this.#policy.maxRestarts) return this.#giveUp(error);
      const attempt = this.#failures.length;
      this.#phase = { kind: 'restarting', error, attempt };
      await this.#service.stop().catch((stopErr: unknown) => logger.warn({ err: stopErr, service: this.name }, 'the failed service did not stop cleanly'));
      const delayMs = this.#backoff.next();
      logger.warn({ service: this.name, err: error, attempt, delayMs }, 'restarting a failed service');
      if (!(await sleep(delayMs, this.#abort.signal))) return;
      this.#service = this.#watch(this.#create());
      try {
        await this.#service.start();
        if (this.#phase.kind === 'restarting') this.#phase = { kind: 'supervising' };
        logger.info({ service: this.name, attempt }, 'restarted the failed service');
        return;
      } catch (startErr) {
        error = startErr;
      }
    }
  }

  #giveUp(err: unknown): void {
    this.#phase = { kind: 'gave-up', error: err };
    this.#deps.logger.error({ service: this.name, err, failures: this.#failures.length, windowMs: this.#policy.windowMs }, 'the service keeps failing; giving up');
    for (const listener of this.#listeners) listener(err);
  }
}
