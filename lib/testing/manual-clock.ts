// A Clock (lib/clock.ts) that moves only when the test says: advance() runs every periodic task that falls
// due, in time order, at the time it falls due.
import type { Clock } from '../clock.js';

interface Periodic {
  readonly ms: number;
  readonly run: () => void;
  due: number;
}

export class ManualClock implements Clock {
  #now: number;
  readonly #tasks = new Set<Periodic>();

  constructor(start = Date.now()) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  every(ms: number, run: () => void): () => void {
    const task = { ms, run, due: this.#now + ms };
    this.#tasks.add(task);
    return () => void this.#tasks.delete(task);
  }

  /** Periodic tasks registered and not stopped. */
  get tasks(): number {
    return this.#tasks.size;
  }

  /** Moves the time on by `ms`, running each task as often as it falls due meanwhile. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const next = [...this.#tasks].reduce<Periodic | undefined>((a, t) => (t.due <= end && (a === undefined || t.due < a.due) ? t : a), undefined);
      if (next === undefined) break;
      this.#now = next.due;
      next.due += next.ms;
      next.run();
    }
    this.#now = end;
  }
}
