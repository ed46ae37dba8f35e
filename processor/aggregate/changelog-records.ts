// A commit's changelog records as byte ranges of the buffers they were encoded into, made into the
// log's ProduceRecords only when sent, a slice at a time. A checkpoint of a quarter of a million flows
// waits for its commit while the input goes on; held as an object and two Buffer views a record, it
// outlived the young generation's collections, which copied it before the old generation's freed it:
// at 1,000,000 flows garbage collection was 30 % of the aggregation (docs/benchmarks.md, "The
// aggregation alone"). Slices sent one after the other die young.
import type { ProduceRecord } from '../../lib/log/types.js';
import { doubled } from '../../lib/typed-arrays.js';

/** Per record: key buffer, key start, key end, value buffer (-1: a tombstone), value start, value end. */
const FIELDS = 6;

export class ChangelogRecords {
  private readonly buffers: Buffer[] = [];
  private bounds = new Int32Array(FIELDS * 1024);
  private count = 0;

  /** The processor.state partition the records go to. */
  constructor(readonly partition: number) {}

  get length(): number {
    return this.count;
  }

  /** A record whose key and value were written into buffers that are not written again while it is held. */
  pushRange(keyBuffer: Buffer, keyStart: number, keyEnd: number, valueBuffer: Buffer, valueStart: number, valueEnd: number): void {
    this.add(this.indexOf(keyBuffer), keyStart, keyEnd, this.indexOf(valueBuffer), valueStart, valueEnd);
  }

  /** A record of buffers of its own; a null value is a tombstone. */
  push(key: Buffer, value: Buffer | null): void {
    const k = this.indexOf(key);
    if (value === null) this.add(k, 0, key.length, -1, 0, 0);
    else this.add(k, 0, key.length, this.indexOf(value), 0, value.length);
  }

  /** The records as the log takes them, `size` at a time: each slice is made when it is asked for. */
  *slices(size: number): Generator<ProduceRecord[]> {
    for (let from = 0; from < this.count; from += size) yield this.produceRecords(from, Math.min(this.count, from + size));
  }

  /** Records [from, to) as the log takes them. */
  produceRecords(from = 0, to = this.count): ProduceRecord[] {
    const out: ProduceRecord[] = [];
    const { bounds, buffers, partition } = this;
    for (let i = from; i < to; i++) {
      const at = i * FIELDS;
      const v = bounds[at + 3]!;
      out.push({ key: buffers[bounds[at]!]!.subarray(bounds[at + 1], bounds[at + 2]), value: v < 0 ? null : buffers[v]!.subarray(bounds[at + 4], bounds[at + 5]), partition });
    }
    return out;
  }

  /** Records are written into a few large chunks one after the other: only a new one is remembered. */
  private indexOf(b: Buffer): number {
    const last = this.buffers.length - 1;
    if (last >= 0 && this.buffers[last] === b) return last;
    this.buffers.push(b);
    return last + 1;
  }

  private add(key: number, keyStart: number, keyEnd: number, value: number, valueStart: number, valueEnd: number): void {
    if ((this.count + 1) * FIELDS > this.bounds.length) this.bounds = doubled(this.bounds);
    const at = this.count++ * FIELDS;
    const b = this.bounds;
    b[at] = key;
    b[at + 1] = keyStart;
    b[at + 2] = keyEnd;
    b[at + 3] = value;
    b[at + 4] = valueStart;
    b[at + 5] = valueEnd;
  }
}
