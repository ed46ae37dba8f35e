// The expiry queue of a partition's flows: an indexed binary min-heap over slot numbers, in typed
// arrays, ordered by a flow's next deadline (the earlier of its active and inactive expiry) and then by
// its creation sequence, so that flows due at the same moment always expire in the same order, after a
// restore too. `position` maps a slot to its heap index, so a flow's deadline changes in O(log n).
const NOT_QUEUED = -1;

function copyInto<T extends Int32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

export class ExpiryHeap {
  private heap: Int32Array;
  private position: Int32Array;
  private deadline: Float64Array;
  private seq: Float64Array;
  private count = 0;

  constructor(capacity: number) {
    this.heap = new Int32Array(capacity);
    this.position = new Int32Array(capacity).fill(NOT_QUEUED);
    this.deadline = new Float64Array(capacity);
    this.seq = new Float64Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Follows the flow store's growth. */
  grow(capacity: number): void {
    this.heap = copyInto(this.heap, new Int32Array(capacity));
    this.position = copyInto(this.position, new Int32Array(capacity).fill(NOT_QUEUED));
    this.deadline = copyInto(this.deadline, new Float64Array(capacity));
    this.seq = copyInto(this.seq, new Float64Array(capacity));
  }

  /** The slot due first, or -1. */
  peek(): number {
    return this.count === 0 ? -1 : this.heap[0]!;
  }

  /** Its deadline (Infinity when empty). */
  peekDeadline(): number {
    return this.count === 0 ? Infinity : this.deadline[this.heap[0]!]!;
  }

  has(slot: number): boolean {
    return this.position[slot]! !== NOT_QUEUED;
  }

  /** Queues a slot, or moves it to its new deadline. */
  set(slot: number, deadline: number, seq: number): void {
    // Most records of a flow leave its next deadline (the active one) as it was: nothing moves.
    if (this.position[slot] !== NOT_QUEUED && this.deadline[slot] === deadline && this.seq[slot] === seq) return;
    this.deadline[slot] = deadline;
    this.seq[slot] = seq;
    let i = this.position[slot]!;
    if (i === NOT_QUEUED) {
      i = this.count++;
      this.heap[i] = slot;
      this.position[slot] = i;
    }
    this.down(this.up(i));
  }

  remove(slot: number): void {
    const i = this.position[slot]!;
    if (i === NOT_QUEUED) return;
    this.position[slot] = NOT_QUEUED;
    const last = this.heap[--this.count]!;
    if (i === this.count) return;
    this.heap[i] = last;
    this.position[last] = i;
    this.down(this.up(i));
  }

  private before(a: number, b: number): boolean {
    const da = this.deadline[a]!;
    const db = this.deadline[b]!;
    return da < db || (da === db && this.seq[a]! < this.seq[b]!);
  }

  private up(i: number): number {
    const slot = this.heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = this.heap[parent]!;
      if (!this.before(slot, p)) break;
      this.heap[i] = p;
      this.position[p] = i;
      i = parent;
    }
    this.heap[i] = slot;
    this.position[slot] = i;
    return i;
  }

  private down(i: number): void {
    const slot = this.heap[i]!;
    const n = this.count;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.before(this.heap[right]!, this.heap[left]!) ? right : left;
      const c = this.heap[child]!;
      if (!this.before(c, slot)) break;
      this.heap[i] = c;
      this.position[c] = i;
      i = child;
    }
    this.heap[i] = slot;
    this.position[slot] = i;
  }
}
