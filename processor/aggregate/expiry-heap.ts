// The expiry queue of a partition's flows: an indexed binary min-heap over slot numbers, in typed
// arrays, ordered by a flow's next deadline (the earlier of its active and inactive expiry) and then by
// its creation sequence, so that flows due at the same moment always expire in the same order, after a
// restore too. Each slot's deadline, sequence and heap index (`position`, so that a flow's deadline
// changes in O(log n)) sit side by side in one array: a record's check that its flow's deadline did not
// move reads one cache line, where three arrays had cost three misses at 100,000 flows and more.
const NOT_QUEUED = -1;
const DEADLINE = 0;
const SEQ = 1;
const POSITION = 2;
const WIDTH = 3;

export class ExpiryHeap {
  private heap: Int32Array;
  /** Per slot: deadline, sequence, heap index (NOT_QUEUED when not queued). */
  private slots: Float64Array;
  private count = 0;

  constructor(capacity: number) {
    this.heap = new Int32Array(capacity);
    this.slots = ExpiryHeap.unqueued(capacity);
  }

  private static unqueued(capacity: number): Float64Array {
    const slots = new Float64Array(capacity * WIDTH);
    for (let s = POSITION; s < slots.length; s += WIDTH) slots[s] = NOT_QUEUED;
    return slots;
  }

  get size(): number {
    return this.count;
  }

  /** Follows the flow store's growth. */
  grow(capacity: number): void {
    const heap = new Int32Array(capacity);
    heap.set(this.heap);
    this.heap = heap;
    const slots = ExpiryHeap.unqueued(capacity);
    slots.set(this.slots);
    this.slots = slots;
  }

  /** The slot due first, or -1. */
  peek(): number {
    return this.count === 0 ? -1 : this.heap[0]!;
  }

  /** Its deadline (Infinity when empty). */
  peekDeadline(): number {
    return this.count === 0 ? Infinity : this.slots[this.heap[0]! * WIDTH + DEADLINE]!;
  }

  has(slot: number): boolean {
    return this.slots[slot * WIDTH + POSITION]! !== NOT_QUEUED;
  }

  /** Queues a slot, or moves it to its new deadline. */
  set(slot: number, deadline: number, seq: number): void {
    // Most records of a flow leave its next deadline (the active one) as it was: nothing moves.
    const { slots } = this;
    const at = slot * WIDTH;
    let i = slots[at + POSITION]!;
    if (i !== NOT_QUEUED && slots[at + DEADLINE] === deadline && slots[at + SEQ] === seq) return;
    slots[at + DEADLINE] = deadline;
    slots[at + SEQ] = seq;
    if (i === NOT_QUEUED) {
      i = this.count++;
      this.heap[i] = slot;
      slots[at + POSITION] = i;
    }
    this.down(this.up(i));
  }

  remove(slot: number): void {
    const i = this.slots[slot * WIDTH + POSITION]!;
    if (i === NOT_QUEUED) return;
    this.slots[slot * WIDTH + POSITION] = NOT_QUEUED;
    const last = this.heap[--this.count]!;
    if (i === this.count) return;
    this.heap[i] = last;
    this.slots[last * WIDTH + POSITION] = i;
    this.down(this.up(i));
  }

  private before(a: number, b: number): boolean {
    const { slots } = this;
    const da = slots[a * WIDTH + DEADLINE]!;
    const db = slots[b * WIDTH + DEADLINE]!;
    return da < db || (da === db && slots[a * WIDTH + SEQ]! < slots[b * WIDTH + SEQ]!);
  }

  private up(i: number): number {
    const slot = this.heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = this.heap[parent]!;
      if (!this.before(slot, p)) break;
      this.heap[i] = p;
      this.slots[p * WIDTH + POSITION] = i;
      i = parent;
    }
    this.heap[i] = slot;
    this.slots[slot * WIDTH + POSITION] = i;
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
      this.slots[c * WIDTH + POSITION] = i;
      i = child;
    }
    this.heap[i] = slot;
    this.slots[slot * WIDTH + POSITION] = i;
  }
}
