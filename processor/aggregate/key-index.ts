// The flow store's index from flow key to slot: open addressing with linear probing in an Int32Array,
// each entry's hash kept beside it. A record's key is looked up from the bytes it was written into and
// compared with the slot's key string character by character, so finding a flow creates no string: a Map
// keyed by strings needed one per record, and hashed it each time (7 % of the processor's CPU at 100,000
// flows, its garbage more).

/** FNV-1a of buf[start, end) from `seed`, finished with murmur3's mix so that linear probing sees well spread bits. */
export function hashBytes(buf: Uint8Array, start: number, end: number, seed = 0x811c9dc5): number {
  let h = seed;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i]!, 16777619);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

export function keyHash(buf: Uint8Array, length: number): number {
  return hashBytes(buf, 0, length);
}

/** Whether `text` is buf[start, start + length) read one character per byte (a key, an address or UUID as the store keeps them). */
export function isLatin1Of(text: string, buf: Uint8Array, start: number, length: number): boolean {
  if (text.length !== length) return false;
  for (let i = 0; i < length; i++) if (text.charCodeAt(i) !== buf[start + i]) return false;
  return true;
}

export class KeyIndex {
  /**
   * Two Int32s per position: slot + 1 (0 is empty) and the slot's hash, so that a probe compares hashes
   * without reading another array (a cache miss per record at 100,000 flows). At most half full.
   */
  private table: Int32Array;
  /** Positions - 1: a position's index in `table` is twice it. */
  private mask: number;
  /** Each slot's hash, where a removal starts looking for it. */
  private hashes: Int32Array;
  size = 0;

  /** `keys` is the store's slot → key array, read (never written) to compare keys. */
  constructor(capacity: number, private readonly keys: () => readonly string[]) {
    this.hashes = new Int32Array(capacity);
    this.table = new Int32Array(2 * tableLength(capacity));
    this.mask = tableLength(capacity) - 1;
  }

  /** The slot whose key is buf[0, length) (hash: keyHash of it), or -1. */
  find(buf: Uint8Array, length: number, hash: number): number {
    const { table, mask } = this;
    const keys = this.keys();
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const entry = table[2 * at]!;
      if (entry === 0) return -1;
      if (table[2 * at + 1] === hash && isLatin1Of(keys[entry - 1]!, buf, 0, length)) return entry - 1;
    }
  }

  /** Indexes a slot under a key not in the index. */
  insert(slot: number, hash: number): void {
    this.hashes[slot] = hash;
    this.place(slot, hash);
    this.size++;
  }

  /** Removes an indexed slot, shifting back the entries after it so that no probe sequence breaks. */
  delete(slot: number): void {
    const { table, mask } = this;
    let hole = this.hashes[slot]! & mask;
    while (table[2 * hole] !== slot + 1) hole = (hole + 1) & mask;
    table[2 * hole] = 0;
    for (let at = (hole + 1) & mask; table[2 * at] !== 0; at = (at + 1) & mask) {
      const home = table[2 * at + 1]! & mask;
      // The entry stays unless the hole lies between its home position and where it is (cyclically).
      const stays = hole <= at ? hole < home && home <= at : hole < home || home <= at;
      if (stays) continue;
      table[2 * hole] = table[2 * at]!;
      table[2 * hole + 1] = table[2 * at + 1]!;
      table[2 * at] = 0;
      hole = at;
    }
    this.size--;
  }

  /** Follows the store's growth: the per-slot hashes grow, the table doubles and every indexed slot is placed again. */
  grow(capacity: number, occupied: Iterable<number>): void {
    const hashes = new Int32Array(capacity);
    hashes.set(this.hashes);
    this.hashes = hashes;
    this.table = new Int32Array(2 * tableLength(capacity));
    this.mask = tableLength(capacity) - 1;
    for (const slot of occupied) this.place(slot, hashes[slot]!);
  }

  private place(slot: number, hash: number): void {
    const { table, mask } = this;
    let at = hash & mask;
    while (table[2 * at] !== 0) at = (at + 1) & mask;
    table[2 * at] = slot + 1;
    table[2 * at + 1] = hash;
  }
}

/** A power of two at least twice the slots, so that the table stays at most half full. */
function tableLength(capacity: number): number {
  let n = 16;
  while (n < capacity * 2) n *= 2;
  return n;
}
