// Runs queued work in slices of the event loop, so that a flood of input never keeps the process from answering
// anything else (/healthz, other sessions' sockets) for longer than one slice plus one item. UDP datagrams come
// in bursts (libuv reads up to 32 per wake-up) and each may cost up to tens of milliseconds (a 64 KB message of
// templates); queued here, they are handled for at most `sliceMs` at a time, then the loop turns. The queue is
// bounded in bytes: beyond `maxBytes`, new items are refused (the caller counts them), as the kernel would drop
// them from a full socket buffer. An item may be handled in parts: `run` returns what is left of it, which
// runs next, in the same slice if time remains.
export interface SlicedQueueOptions {
  readonly maxBytes: number;
  readonly sliceMs: number;
}

export class SlicedQueue<T> {
  readonly #opts: SlicedQueueOptions;
  readonly #run: (item: T) => T | undefined;
  readonly #items: { item: T; readonly bytes: number }[] = [];
  #head = 0;
  #bytes = 0;
  #scheduled = false;

  /** `run` handles an item, or part of it and returns the rest. */
  constructor(opts: SlicedQueueOptions, run: (item: T) => T | undefined) {
    this.#opts = opts;
    this.#run = run;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Queues an item; false (and nothing queued) when the queue is full. */
  push(item: T, bytes: number): boolean {
    if (this.#bytes + bytes > this.#opts.maxBytes) return false;
    this.#items.push({ item, bytes });
    this.#bytes += bytes;
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#drain);
    }
    return true;
  }

  readonly #drain = (): void => {
    const until = performance.now() + this.#opts.sliceMs;
    while (this.#head < this.#items.length && performance.now() < until) {
      const entry = this.#items[this.#head]!;
      const rest = this.#run(entry.item);
      if (rest !== undefined) {
        entry.item = rest;
        continue;
      }
      this.#items[this.#head++] = undefined as never;
      this.#bytes -= entry.bytes;
    }
    if (this.#head === this.#items.length) {
      this.#items.length = 0;
      this.#head = 0;
      this.#scheduled = false;
    } else {
      if (this.#head > 1024) {
        this.#items.splice(0, this.#head);
        this.#head = 0;
      }
      setImmediate(this.#drain);
    }
  };
}
