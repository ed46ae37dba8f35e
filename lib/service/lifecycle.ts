// The one lifecycle of every service (ingest, the processor, each export runner, the flow stream):
//   created → starting → running → stopping → stopped, and failed from starting or running.
// A start that throws runs the service's cleanup and rethrows the start's error: a cleanup that fails
// too is logged, never thrown in its place. A failure after the start (a consumer that died) moves the
// service to failed and tells its supervisor (supervisor.ts), which stops it and starts a new one.
import { type ErrorCode, errorMessage } from '../errors.js';
import type { Logger } from '../telemetry/logger.js';
import { StateMachine, type Transitions } from './state-machine.js';

export type ServiceState = 'created' | 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

export interface Readiness {
  readonly ready: boolean;
  readonly detail?: string;
}

const TRANSITIONS: Transitions<ServiceState> = {
  created: ['starting', 'stopped'],
  starting: ['running', 'failed'],
  running: ['stopping', 'failed'],
  stopping: ['stopped'],
  stopped: [],
  failed: ['stopping'],
};

export class Lifecycle {
  readonly #machine: StateMachine<ServiceState>;
  readonly #listeners: ((err: unknown) => void)[] = [];
  #failure: unknown;

  /** `subject` names the service in guard errors (`ingest.start() is not allowed in state 'running'`). */
  constructor(
    private readonly subject: string,
    errorCode: ErrorCode,
    private readonly logger: Logger,
  ) {
    this.#machine = new StateMachine(subject, TRANSITIONS, 'created', errorCode);
  }

  get state(): ServiceState {
    return this.#machine.state;
  }

  /** What moved the service to failed, at its start or later. */
  get failure(): unknown {
    return this.#failure;
  }

  /** Throws unless the service is in one of `legal`: for the service's own methods beyond start and stop. */
  guard(method: string, legal: readonly ServiceState[]): void {
    this.#machine.guard(method, legal);
  }

  /** Runs `body` from created; on a failure runs `cleanup` and rethrows the failure, whatever cleanup does. */
  async start(body: () => Promise<void>, cleanup: () => Promise<void>): Promise<void> {
    this.#machine.guard('start', ['created']);
    this.#machine.to('starting');
    try {
      await body();
    } catch (err) {
      this.#failure = err;
      this.#machine.to('failed');
      await cleanup().catch((cleanupErr: unknown) => this.logger.warn({ err: cleanupErr, startError: err }, `${this.subject}: cleanup after a failed start failed too`));
      throw err;
    }
    this.#machine.to('running');
  }

  /** Runs `body` once from running or failed; a service never started, or stopped already, has nothing to do. */
  async stop(body: () => Promise<void>): Promise<void> {
    if (this.#machine.is('created')) this.#machine.to('stopped');
    if (this.#machine.is('stopped')) return;
    this.#machine.guard('stop', ['running', 'failed']);
    this.#machine.to('stopping');
    try {
      await body();
    } finally {
      this.#machine.to('stopped');
    }
  }

  /**
   * A failure of the running service that it cannot recover from itself: the service is failed and its
   * supervisor is told. Failures while starting belong to start(); while stopping or stopped, to nobody.
   */
  fail(err: unknown): void {
    if (!this.#machine.is('running')) return;
    this.#failure = err;
    this.#machine.to('failed');
    this.logger.error({ err }, `${this.subject} failed`);
    for (const listener of this.#listeners) listener(err);
  }

  onFailure(listener: (err: unknown) => void): void {
    this.#listeners.push(listener);
  }

  /** Not ready unless running; when running, what `running` says (the service's own conditions). */
  readiness(running: () => Readiness = () => ({ ready: true })): Readiness {
    if (this.#machine.is('running')) return running();
    if (this.#machine.is('failed')) return { ready: false, detail: `${this.subject} failed: ${errorMessage(this.#failure)}` };
    return { ready: false, detail: `${this.subject} is ${this.#machine.state}` };
  }
}
