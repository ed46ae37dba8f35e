// Whether an exporter's destination answers, as its runner sees it: the exporter's start (connecting,
// checking the bucket, creating the schema) and every partition's deliveries report here. The
// destination is unreachable from the first failure until no one is failing any more, and each change
// is logged once, however many attempts fail in between (they are retried with backoff for as long as
// it takes; collection and the processor never wait for a destination). /readyz shows the state as a
// detail of a check that stays ready, so that Kubernetes keeps sending Agents' records to the Pod.
import { errorMessage } from '../lib/errors.js';
import type { Logger } from '../lib/telemetry/logger.js';
import { exportMetrics } from './metrics.js';

export type DestinationStatus =
  | { readonly kind: 'connecting'; readonly since: number }
  | { readonly kind: 'up' }
  | { readonly kind: 'unreachable'; readonly since: number; readonly error: string };

/** Who failed: the exporter's start, or the deliveries of one partition. */
export type Attempter = 'start' | `partition ${number}`;

export class DestinationHealth {
  readonly #failing = new Map<Attempter, string>();
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #up: ReturnType<typeof exportMetrics.destinationUp.labels>;
  #status: DestinationStatus;

  constructor(kind: string, logger: Logger, now: () => number) {
    this.#logger = logger;
    this.#now = now;
    this.#up = exportMetrics.destinationUp.labels(kind);
    this.#up.set(0);
    this.#status = { kind: 'connecting', since: now() };
  }

  get status(): DestinationStatus {
    return this.#status;
  }

  failed(who: Attempter, err: unknown): void {
    const error = errorMessage(err);
    this.#failing.set(who, error);
    if (this.#status.kind === 'unreachable') {
      this.#status = { ...this.#status, error };
      return;
    }
    const since = this.#status.kind === 'connecting' ? this.#status.since : this.#now();
    const atStart = this.#status.kind === 'connecting';
    this.#status = { kind: 'unreachable', since, error };
    this.#up.set(0);
    this.#logger.warn({ failed: who, err: error }, `destination unreachable${atStart ? ' at start' : ''}: retrying with backoff until it answers; records wait in the log meanwhile`);
  }

  succeeded(who: Attempter): void {
    this.#failing.delete(who);
    if (this.#status.kind === 'up' || this.#failing.size > 0) return;
    const was = this.#status;
    this.#status = { kind: 'up' };
    this.#up.set(1);
    if (was.kind === 'unreachable') {
      this.#logger.info({ unreachableForMs: this.#now() - was.since }, 'destination reachable again: catching up from the log');
    }
  }

  /** A partition that is no longer this runner's: its failures say nothing more (the state waits for the next attempt). */
  forget(who: Attempter): void {
    this.#failing.delete(who);
  }

  /** For /readyz; undefined while the destination answers. */
  detail(): string | undefined {
    const s = this.#status;
    if (s.kind === 'connecting') return `connecting to the destination since ${new Date(s.since).toISOString()}`;
    if (s.kind === 'unreachable') return `destination unreachable since ${new Date(s.since).toISOString()}, retrying: ${s.error}`;
    return undefined;
  }
}
