// The chunks ingest's RunWriters write records into, reused once nothing reads them: a chunk is held by
// the writer while it writes in it or has records there not yet taken, and by each run in it until the log
// has the run's records. A chunk nobody holds goes back to the pool (lib/buffer-pool.ts says why).
import { BufferPool } from '../../lib/buffer-pool.js';
import type { RecordRun } from '../../lib/log/types.js';

const CHUNK_BYTES = 1 << 20;

export class RunChunks {
  readonly #pool: BufferPool;
  readonly #holds = new Map<Buffer, number>();

  /**
   * Keeps up to `maxFree` free chunks (16 MiB by default: the queue's batches in flight, 4 of 5,000 records,
   * take about 7).
   */
  constructor(maxFree = 16) {
    this.#pool = new BufferPool(CHUNK_BYTES, maxFree);
  }

  /** Chunks held now. */
  get held(): number {
    return this.#holds.size;
  }

  /** A chunk of at least `size` bytes, held once. */
  acquire(size: number): Buffer {
    const buf = this.#pool.take(size);
    this.#holds.set(buf, 1);
    return buf;
  }

  hold(buf: Buffer): void {
    const n = this.#holds.get(buf);
    if (n !== undefined) this.#holds.set(buf, n + 1);
  }

  drop(buf: Buffer): void {
    const n = this.#holds.get(buf);
    if (n === undefined) return;
    if (n > 1) {
      this.#holds.set(buf, n - 1);
    } else {
      this.#holds.delete(buf);
      this.#pool.give(buf);
    }
  }

  /** The log has these runs' records (or they were given up). */
  release(runs: readonly RecordRun[]): void {
    for (const run of runs) this.drop(run.buf);
  }
}
