// Exponential backoff (1 s doubling to 30 s by default, reset on success), for retried deliveries and
// for reconnecting to a destination, and a sleep that a stop cuts short.
import { setTimeout as delay } from 'node:timers/promises';

export class Backoff {
  #next: number;

  constructor(
    readonly initialMs = 1000,
    readonly maxMs = 30_000,
  ) {
    this.#next = initialMs;
  }

  /** The delay to wait now; the one after it is twice as long, up to maxMs. */
  next(): number {
    const ms = this.#next;
    this.#next = Math.min(this.maxMs, ms * 2);
    return ms;
  }

  reset(): void {
    this.#next = this.initialMs;
  }
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
