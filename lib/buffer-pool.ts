// Large buffers handed back for reuse. A fresh Buffer of a megabyte is memory outside V8's heap, and V8
// answers a steady stream of them with a full garbage collection every few megabytes ("external memory
// pressure"): ingest writing 2,000,000 records ran 168 of them, 14-16 % of its main thread.
// A pool keeps up to `maxFree` ArrayBuffers of `bytes` each for the next taker; a larger request, or one
// below `minPooled` (which Node serves from its own small slabs), is allocated as usual.

export class BufferPool {
  readonly #free: ArrayBuffer[] = [];

  constructor(readonly bytes: number, private readonly maxFree: number, private readonly minPooled = 0) {}

  /** `size` bytes (whatever was there before), from the pool when they fit. */
  take(size: number): Buffer {
    if (size > this.bytes || size < this.minPooled) return Buffer.allocUnsafe(size);
    const free = this.#free.pop();
    return free === undefined ? Buffer.allocUnsafeSlow(this.bytes).subarray(0, size) : Buffer.from(free, 0, size);
  }

  /** Hands back a buffer from take, once nothing reads or writes it any more. */
  give(buf: Buffer): void {
    if (buf.byteOffset === 0 && buf.buffer.byteLength === this.bytes && this.#free.length < this.maxFree) this.#free.push(buf.buffer as ArrayBuffer);
  }
}
