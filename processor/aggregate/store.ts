// The flow store of one input partition: every flow's state in three typed-array rows (columns.ts)
// indexed by a slot number, each flow's key (its bytes as a latin1 string, 6 to 38 characters) found by
// the key index (key-index.ts), freed slots reused, capacity doubled when full. No object per flow: at a
// million flows the store holds about 530 bytes per flow, interned strings included (npm run bench --
// processor).
import { StringPool, type TextEncoding } from './intern.js';
import { F_WIDTH, I_INTERNED_END, I_WIDTH, U_DIRTY, U_WIDTH } from './columns.js';
import { KeyIndex, keyHash } from './key-index.js';

const INITIAL_CAPACITY = 1024;

export class FlowStore {
  f64: Float64Array;
  i32: Int32Array;
  u8: Uint8Array;
  /** Slot → flow key (latin1 of the key bytes); '' for a free slot. */
  keys: string[];
  readonly pool = new StringPool();
  private readonly index: KeyIndex;
  /** A key string's bytes, for lookups by string (restore). */
  private readonly scratch = Buffer.alloc(64);
  private dirty: number[] = [];
  private freeSlots: Int32Array;
  private freeCount = 0;
  /** Slots ever handed out (free or not); beyond it every slot is unused. */
  private used = 0;
  /** Called with (old, new) capacity after a growth, so that per-slot structures can follow. */
  onGrow: (capacity: number) => void = () => {};

  constructor(capacity = INITIAL_CAPACITY) {
    this.f64 = new Float64Array(capacity * F_WIDTH);
    this.i32 = new Int32Array(capacity * I_WIDTH);
    this.u8 = new Uint8Array(capacity * U_WIDTH);
    this.keys = new Array<string>(capacity).fill('');
    this.freeSlots = new Int32Array(capacity);
    this.index = new KeyIndex(capacity, () => this.keys);
  }

  get size(): number {
    return this.index.size;
  }

  /** Flows with changes not yet written to the changelog (an upper bound). */
  get dirtyCount(): number {
    return this.dirty.length;
  }

  get capacity(): number {
    return this.keys.length;
  }

  /** The slot of a flow key, or -1. */
  slotOf(key: string): number {
    const length = this.scratch.write(key, 'latin1');
    return this.slotOfBytes(this.scratch, length);
  }

  /** The slot of the flow key in buf[0, length), or -1: a record's key is found without a string. */
  slotOfBytes(buf: Uint8Array, length: number): number {
    return this.index.find(buf, length, keyHash(buf, length));
  }

  /** A zeroed slot for a new flow key (not already in the store). */
  add(key: string): number {
    let slot: number;
    if (this.freeCount > 0) slot = this.freeSlots[--this.freeCount]!;
    else {
      if (this.used === this.capacity) this.grow();
      slot = this.used++;
    }
    this.keys[slot] = key;
    const length = this.scratch.write(key, 'latin1');
    this.index.insert(slot, keyHash(this.scratch, length));
    return slot;
  }

  /** Frees a flow's slot: its interned ids are released and its rows zeroed for the next flow. */
  remove(slot: number): void {
    const i = slot * I_WIDTH;
    for (let c = 0; c < I_INTERNED_END; c++) this.pool.release(this.i32[i + c]!);
    this.i32.fill(0, i, i + I_WIDTH);
    this.f64.fill(0, slot * F_WIDTH, (slot + 1) * F_WIDTH);
    this.u8.fill(0, slot * U_WIDTH, (slot + 1) * U_WIDTH);
    this.index.delete(slot);
    this.keys[slot] = '';
    this.freeSlots[this.freeCount++] = slot;
  }

  /** Sets an interned column; returns whether its value changed. */
  setInterned(slot: number, column: number, text: string): boolean {
    return this.hold(slot * I_WIDTH + column, this.pool.acquire(text));
  }

  /** Sets an interned column to the text whose bytes in `encoding` are b[start, start + length); returns whether its value changed. */
  setInternedBytes(slot: number, column: number, encoding: TextEncoding, b: Buffer, start: number, length: number): boolean {
    return this.hold(slot * I_WIDTH + column, this.pool.acquireBytes(encoding, b, start, length));
  }

  /** Puts an acquired id at i32[at], releasing the one it replaces. */
  private hold(at: number, id: number): boolean {
    const old = this.i32[at]!;
    this.i32[at] = id;
    this.pool.release(old);
    return id !== old;
  }

  text(slot: number, column: number): string {
    return this.pool.text(this.i32[slot * I_WIDTH + column]!);
  }

  /** Marks what the next commit must write to the changelog for this flow (DIRTY_* bits). */
  markDirty(slot: number, bits: number): void {
    const at = slot * U_WIDTH + U_DIRTY;
    const before = this.u8[at]!;
    if (before === 0) this.dirty.push(slot);
    this.u8[at] = before | bits;
  }

  /**
   * The slots marked dirty since the last call, once each. A slot freed since (its marks cleared) or
   * freed and reused may appear twice: callers skip a slot whose marks are already cleared.
   */
  takeDirty(): number[] {
    const dirty = this.dirty;
    this.dirty = [];
    return dirty;
  }

  /** Every occupied slot, in slot order. */
  *slots(): IterableIterator<number> {
    const keys = this.keys;
    for (let slot = 0; slot < this.used; slot++) if (keys[slot] !== '') yield slot;
  }

  private grow(): void {
    const capacity = this.capacity * 2;
    const grow = <T extends Float64Array | Int32Array | Uint8Array>(a: T, width: number): T => {
      const next = new (a.constructor as new (n: number) => T)(capacity * width);
      next.set(a);
      return next;
    };
    this.f64 = grow(this.f64, F_WIDTH);
    this.i32 = grow(this.i32, I_WIDTH);
    this.u8 = grow(this.u8, U_WIDTH);
    this.freeSlots = grow(this.freeSlots, 1);
    const keys = this.keys;
    keys.length = capacity;
    keys.fill('', this.used);
    this.index.grow(capacity, this.slots());
    this.onGrow(capacity);
  }
}
