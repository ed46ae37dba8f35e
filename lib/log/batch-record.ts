// A record read from the bytes of a batch (the embedded log's record batches, lib/log/record-batch.ts; a
// thread's packed records, lib/log/remote/packing.ts): its key and value stay where they are in the
// buffer it shares with the other records, and become Buffer views only when asked for. A reader of
// hundreds of thousands of records a second (the processor) reads the value in place (`bytes`,
// `valueStart`, `valueLength`) and makes no Buffer per record: two views per record were the largest part
// of the processor's garbage (docs/benchmarks.md, "Processor").
import type { Headers, LogRecord } from './types.js';

/** A view of bytes[start, start + length), null for a length of -1. */
export const view = (bytes: Buffer, start: number, length: number): Buffer | null => (length < 0 ? null : Buffer.from(bytes.buffer, bytes.byteOffset + start, length));

export class BatchRecord implements LogRecord {
  private keyView: Buffer | null | undefined = undefined;
  private valueView: Buffer | null | undefined = undefined;

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly offset: number,
    readonly timestamp: number,
    readonly headers: Headers,
    /** The buffer the key and value are in, with other records'. */
    readonly bytes: Buffer,
    readonly keyStart: number,
    /** -1 for a null key. */
    readonly keyLength: number,
    readonly valueStart: number,
    /** -1 for a null value (a tombstone). */
    readonly valueLength: number,
  ) {}

  get key(): Buffer | null {
    return (this.keyView ??= view(this.bytes, this.keyStart, this.keyLength));
  }

  get value(): Buffer | null {
    return (this.valueView ??= view(this.bytes, this.valueStart, this.valueLength));
  }
}
