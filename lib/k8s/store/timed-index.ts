// Objects of one kind with the time span each existed in, indexed by lookup key (a Pod by each of its
// IPs, a Node or Service by its name), as Antrea's pkg/util/objectstore keeps them: a deleted object stays
// findable for `retentionMs` after its deletion, then goes, so memory is bounded by the live objects plus
// the deletions of the last retention period.
// Deletions expire in the order they happened, from a FIFO queue, so expiry costs O(1) per object.
// Keys are strings or numbers (a Map finds a number several times faster than a string: Pods' IPv4
// addresses are kept as numbers for that).

type Key = string | number;

interface Entry<T> {
  readonly id: string;
  name: string;
  value: T;
  keys: readonly Key[];
  createdMs: number;
  deletedMs: number | undefined;
}

export class TimedIndex<T> {
  readonly #byId = new Map<string, Entry<T>>();
  /** Live objects by namespace/name: a new id under a known name means the old object is gone. */
  readonly #liveByName = new Map<string, Entry<T>>();
  readonly #byKey = new Map<Key, Entry<T>[]>();
  /** Deleted entries in deletion order, with the deletion time they were queued at. */
  #expiry: { entry: Entry<T>; deletedMs: number }[] = [];
  #expiryHead = 0;
  #deleted = 0;

  constructor(private readonly retentionMs: number) {}

  get live(): number {
    return this.#byId.size - this.#deleted;
  }

  get deleted(): number {
    return this.#deleted;
  }

  upsert(id: string, name: string, keyList: readonly Key[], value: T, createdMs: number, timeMs: number): void {
    const keys = [...new Set(keyList)];
    const sameName = this.#liveByName.get(name);
    if (sameName !== undefined && sameName.id !== id) this.delete(sameName.id, timeMs);
    const entry = this.#byId.get(id);
    if (entry === undefined) {
      const created: Entry<T> = { id, name, value, keys, createdMs, deletedMs: undefined };
      this.#byId.set(id, created);
      for (const k of keys) this.#addKey(k, created);
      this.#liveByName.set(name, created);
      return;
    }
    // An update keeps the creation time, as Antrea's store does; a Pod's IPs may change (assigned late).
    if (entry.deletedMs !== undefined) {
      entry.deletedMs = undefined;
      this.#deleted--;
    }
    for (const k of entry.keys) if (!keys.includes(k)) this.#removeKey(k, entry);
    for (const k of keys) if (!entry.keys.includes(k)) this.#addKey(k, entry);
    entry.keys = keys;
    entry.value = value;
    entry.name = name;
    this.#liveByName.set(name, entry);
  }

  delete(id: string, timeMs: number): void {
    const entry = this.#byId.get(id);
    if (entry === undefined || entry.deletedMs !== undefined) return;
    entry.deletedMs = timeMs;
    this.#deleted++;
    if (this.#liveByName.get(entry.name) === entry) this.#liveByName.delete(entry.name);
    this.#expiry.push({ entry, deletedMs: timeMs });
  }

  /** Forgets the objects deleted at least `retentionMs` before `nowMs`. */
  expire(nowMs: number): void {
    const q = this.#expiry;
    while (this.#expiryHead < q.length && q[this.#expiryHead]!.deletedMs + this.retentionMs <= nowMs) {
      const { entry, deletedMs } = q[this.#expiryHead++]!;
      // Skip entries that came back to life (or were deleted again later: that deletion has its own slot).
      if (entry.deletedMs !== deletedMs || this.#byId.get(entry.id) !== entry) continue;
      this.#byId.delete(entry.id);
      this.#deleted--;
      for (const k of entry.keys) this.#removeKey(k, entry);
    }
    if (this.#expiryHead > 1024 && this.#expiryHead * 2 > q.length) {
      this.#expiry = q.slice(this.#expiryHead);
      this.#expiryHead = 0;
    }
  }

  /**
   * The value whose span is nearest `timeMs` within `toleranceMs`: one whose span contains it if any,
   * else the one whose creation or deletion lies closest. Ties go to the object created last.
   */
  at(key: Key, timeMs: number, toleranceMs: number): T | undefined {
    const entries = this.#byKey.get(key);
    if (entries === undefined) return undefined;
    let best: Entry<T> | undefined;
    let bestDistance = Infinity;
    for (const e of entries) {
      // The span is [created, deleted): the millisecond of the deletion lies 1 ms outside it.
      const distance = timeMs < e.createdMs ? e.createdMs - timeMs : e.deletedMs !== undefined && timeMs >= e.deletedMs ? timeMs - e.deletedMs + 1 : 0;
      if (distance > toleranceMs) continue;
      if (distance < bestDistance || (distance === bestDistance && best !== undefined && e.createdMs > best.createdMs)) {
        best = e;
        bestDistance = distance;
      }
    }
    return best?.value;
  }

  /** The live value under `key`, else the one deleted last. */
  latest(key: Key): T | undefined {
    const entries = this.#byKey.get(key);
    if (entries === undefined) return undefined;
    let best: Entry<T> | undefined;
    for (const e of entries) {
      if (e.deletedMs === undefined) return e.value;
      if (best === undefined || e.deletedMs > best.deletedMs!) best = e;
    }
    return best?.value;
  }

  #addKey(key: Key, entry: Entry<T>): void {
    const list = this.#byKey.get(key);
    if (list === undefined) this.#byKey.set(key, [entry]);
    else list.push(entry);
  }

  #removeKey(key: Key, entry: Entry<T>): void {
    const list = this.#byKey.get(key);
    if (list === undefined) return;
    const i = list.indexOf(entry);
    if (i !== -1) list.splice(i, 1);
    if (list.length === 0) this.#byKey.delete(key);
  }
}
