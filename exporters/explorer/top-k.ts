// The heaviest keys of a stream in bounded memory: weighted Space-Saving (Metwally, Agrawal and El Abbadi,
// 2005), ranked by bytes, with a budget in bytes rather than a count of entries, since keys (Pod pairs,
// policy rules) differ in length. While the keys fit, every count is exact. Once the budget is reached,
// a new key evicts the lightest entries until it fits; `floor` is the heaviest weight evicted so far,
// which bounds the true weight of any key not held (it was either evicted at or below the floor, or never
// seen while lighter keys were held). A new key enters at floor + its weight with `error` = floor, so for
// every key held: bytes − error ≤ true bytes ≤ bytes. Packets and records are counted from when the key
// entered: exact when its error is 0, a lower bound otherwise.

/**
 * What one held key costs beside its characters: the Map slot (and the holes evictions leave in it), the
 * entry object, its heap slot. Measured on Node 20: about 156 bytes in a map that only grows, more under
 * the churn of a flood (rollups.test.ts measures the heap against the accounted bytes).
 */
export const ENTRY_OVERHEAD_BYTES = 200;

export interface TopEntry {
  readonly key: string;
  readonly bytes: number;
  readonly packets: number;
  readonly records: number;
  readonly error: number;
}

interface Entry extends TopEntry {
  bytes: number;
  packets: number;
  records: number;
  /** Its index in the heap. */
  at: number;
  readonly cost: number;
}

/** V8 keeps a string of Latin-1 characters in one byte each, any other in two. */
export function keyCost(key: string): number {
  // eslint-disable-next-line no-control-regex
  return ENTRY_OVERHEAD_BYTES + (/[^\u0000-\u00ff]/.test(key) ? 2 : 1) * key.length;
}

export class TopK {
  readonly #entries = new Map<string, Entry>();
  /** Min-heap on bytes: the lightest entry, the next to evict, first. */
  readonly #heap: Entry[] = [];
  #floor = 0;
  #bytes = 0;

  constructor(readonly budgetBytes: number) {}

  /** The heaviest weight evicted: a key not held has at most this many bytes. */
  get floor(): number {
    return this.#floor;
  }

  /** What the held entries cost (keys and overhead), at most budgetBytes. */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): TopEntry | undefined {
    return this.#entries.get(key);
  }

  entries(): IterableIterator<TopEntry> {
    return this.#entries.values();
  }

  add(key: string, bytes: number, packets: number, records: number): void {
    const held = this.#entries.get(key);
    if (held !== undefined) {
      held.bytes += bytes;
      held.packets += packets;
      held.records += records;
      this.#down(held.at);
      return;
    }
    const cost = keyCost(key);
    while (this.#bytes + cost > this.budgetBytes && this.#heap.length > 0) this.#evict();
    if (this.#bytes + cost > this.budgetBytes) {
      // A key longer than the whole budget is never held: its weight is what the floor now bounds.
      this.#floor = Math.max(this.#floor, bytes);
      return;
    }
    const entry: Entry = { key, bytes: this.#floor + bytes, packets, records, error: this.#floor, at: this.#heap.length, cost };
    this.#entries.set(key, entry);
    this.#heap.push(entry);
    this.#bytes += cost;
    this.#up(entry.at);
  }

  #evict(): void {
    const lightest = this.#heap[0]!;
    const last = this.#heap.pop()!;
    if (last !== lightest) {
      this.#heap[0] = last;
      last.at = 0;
      this.#down(0);
    }
    this.#entries.delete(lightest.key);
    this.#bytes -= lightest.cost;
    this.#floor = Math.max(this.#floor, lightest.bytes);
  }

  #swap(i: number, j: number): void {
    const h = this.#heap;
    const a = h[i]!;
    const b = h[j]!;
    h[i] = b;
    h[j] = a;
    b.at = i;
    a.at = j;
  }

  #up(i: number): void {
    const h = this.#heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.bytes <= h[i]!.bytes) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const h = this.#heap;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= h.length) return;
      const right = left + 1;
      const lighter = right < h.length && h[right]!.bytes < h[left]!.bytes ? right : left;
      if (h[i]!.bytes <= h[lighter]!.bytes) return;
      this.#swap(i, lighter);
      i = lighter;
    }
  }
}
