// A sparse, in-memory index from a monotonic key (an offset, or the largest timestamp so far) to a file
// position, one entry per `intervalBytes` of log, as Kafka's .index and .timeindex. It is derived data:
// rebuilt whenever a segment is opened, so it can never disagree with the segment after a crash.
export class SparseIndex {
  private readonly keys: number[] = [];
  private readonly positions: number[] = [];

  add(key: number, position: number): void {
    this.keys.push(key);
    this.positions.push(position);
  }

  get size(): number {
    return this.keys.length;
  }

  /** The position of the last entry whose key is below `key` (where a forward scan for `key` starts), else 0. */
  floorBelow(key: number): number {
    let lo = 0;
    let hi = this.keys.length - 1;
    let found = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid]! < key) {
        found = this.positions[mid]!;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /** The position of the last entry whose key is at most `key`, else 0. */
  floor(key: number): number {
    return this.floorBelow(key + 1);
  }
}
