// The one way flowagg waits between attempts: exponential backoff with jitter, so that replicas and
// partitions that failed together do not retry together, and a retry loop that asks the error whether
// another attempt can help (FlowaggError.retriable, unless the caller knows better).
import { setTimeout as delay } from 'node:timers/promises';
import { isFlowaggError } from './errors.js';

export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  /** The share of each delay drawn at random (0: none, 1: anywhere from 0 to the delay). Default 0.5. */
  readonly jitter?: number;
}

const DEFAULT_JITTER = 0.5;

/** Delays doubling from initialMs to maxMs, each shortened by a random share of at most `jitter`. */
export class Backoff {
  #attempt = 0;

  constructor(
    readonly policy: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay to wait now; the next one is twice as long (before jitter), up to maxMs. */
  next(): number {
    const { initialMs, maxMs, jitter = DEFAULT_JITTER } = this.policy;
    const base = Math.min(maxMs, initialMs * 2 ** this.#attempt);
    if (base < maxMs) this.#attempt++;
    return Math.round(base * (1 - jitter * this.random()));
  }

  reset(): void {
    this.#attempt = 0;
  }
}

/** Whether trying again can help, by the error's own word: only a FlowaggError marked retriable says yes. */
export function isRetriable(err: unknown): boolean {
  return isFlowaggError(err) && err.retriable;
}

/** Waits ms; resolves false at once when signal aborts (before or during the wait). */
export async function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return false;
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
    return true;
  } catch {
    return false;
  }
}

export interface RetryOptions {
  readonly policy: BackoffPolicy;
  /** Ends the retries (the wait too): the outcome is then `aborted`. */
  readonly signal?: AbortSignal;
  /** Default isRetriable. */
  readonly retriable?: (err: unknown) => boolean;
  /** Before each wait, with the attempt that failed (from 1). */
  readonly onRetry?: (err: unknown, delayMs: number, attempt: number) => void;
}

export type RetryOutcome<T> =
  | { readonly kind: 'done'; readonly value: T }
  | { readonly kind: 'refused'; readonly error: unknown }
  | { readonly kind: 'aborted'; readonly error: unknown };

/** Runs `attempt` until it resolves, an error is not retriable, or the signal aborts. */
export async function retry<T>(attempt: (n: number) => Promise<T>, opts: RetryOptions): Promise<RetryOutcome<T>> {
  const backoff = new Backoff(opts.policy);
  const retriable = opts.retriable ?? isRetriable;
  for (let n = 1; ; n++) {
    try {
      return { kind: 'done', value: await attempt(n) };
    } catch (err) {
      if (opts.signal?.aborted) return { kind: 'aborted', error: err };
      if (!retriable(err)) return { kind: 'refused', error: err };
      const delayMs = backoff.next();
      opts.onRetry?.(err, delayMs, n);
      if (!(await sleep(delayMs, opts.signal))) return { kind: 'aborted', error: err };
    }
  }
}
