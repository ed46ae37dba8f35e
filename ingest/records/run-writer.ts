// Where ingest's transcoders write: a RecordBuffer, and the bounds of each record written, gathered into
// RecordRuns for the log (one run per chunk of the buffer the records lie in). The log copies the records
// from the chunks into its batches, so nothing is made per record. With RunChunks the chunks are reused
// once the runs in them are released; without, a chunk is never written again.
import type { RecordRun } from '../../lib/log/types.js';
import { doubled } from '../../lib/typed-arrays.js';
import { RecordBuffer } from '../../schemas/record-buffer.js';
import type { RunChunks } from './run-chunks.js';

export interface WrittenRuns {
  readonly runs: RecordRun[];
  readonly records: number;
  /** Bytes of the records' keys and values. */
  readonly bytes: number;
}

export class RunWriter {
  readonly out: RecordBuffer;
  #bounds = new Int32Array(3 * 1024);
  #records = 0;
  /** The chunk of each run, and the index of its first record. */
  readonly #chunks: Buffer[] = [];
  readonly #firsts: number[] = [];

  constructor(private readonly chunks?: RunChunks, chunkSize?: number) {
    this.out = chunks === undefined ? new RecordBuffer(chunkSize) : new RecordBuffer(chunkSize, (full, size) => this.#nextChunk(full, size));
  }

  /** The writer holds its chunk, and each chunk with records not yet taken. */
  #nextChunk(full: Buffer | undefined, size: number): Buffer {
    if (full !== undefined && !this.#chunks.includes(full)) this.chunks!.drop(full);
    return this.chunks!.acquire(size);
  }

  /** Lets go of the chunks of records no longer pending, but the one being written. */
  #dropPending(chunks: readonly Buffer[]): void {
    for (const chunk of chunks) if (chunk !== this.out.buf) this.chunks?.drop(chunk);
  }

  /** Records added since the last take. */
  get records(): number {
    return this.#records;
  }

  /** Adds the record just written to `out` (its keyStart, keyEnd and valueEnd). */
  added(): void {
    const out = this.out;
    if (this.#chunks.at(-1) !== out.buf) {
      this.#chunks.push(out.buf);
      this.#firsts.push(this.#records);
    }
    let at = 3 * this.#records;
    if (at + 3 > this.#bounds.length) this.#bounds = doubled(this.#bounds);
    const bounds = this.#bounds;
    bounds[at++] = out.keyStart;
    bounds[at++] = out.keyEnd;
    bounds[at] = out.valueEnd;
    this.#records++;
  }

  /** Forgets the records added after the first `records` since the last take. */
  rewind(records: number): void {
    this.#records = Math.min(records, this.#records);
    while (this.#firsts.length > 0 && this.#firsts.at(-1)! >= this.#records) {
      this.#firsts.pop();
      this.#dropPending([this.#chunks.pop()!]);
    }
  }

  /** The records added since the last take, in runs (each holding its chunk until released), and starts again. */
  take(): WrittenRuns {
    const runs: RecordRun[] = [];
    let bytes = 0;
    for (let i = 0; i < this.#chunks.length; i++) {
      const bounds = this.#bounds.slice(3 * this.#firsts[i]!, 3 * (this.#firsts[i + 1] ?? this.#records));
      for (let at = 0; at < bounds.length; at += 3) bytes += bounds[at + 2]! - bounds[at]!;
      runs.push({ buf: this.#chunks[i]!, bounds });
      this.chunks?.hold(this.#chunks[i]!);
    }
    const records = this.#records;
    this.rewind(0);
    return { runs, records, bytes };
  }
}
