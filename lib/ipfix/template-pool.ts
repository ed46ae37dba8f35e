// A budget of templates shared by many TemplateStores: at most `perGroup` templates per group (the ingest
// service groups sessions by exporter address, so forged UDP source ports share one budget) and `total`
// in all. When a bound is reached the least recently used template goes: the group's own for a full group,
// and, for a full pool, one of the least recently active group. An exporter that keeps using its templates
// is therefore the last to lose them, and a flood of new templates, from one address or from many forged
// ones, evicts the flood's own templates first. `totalFields` bounds the fields of all templates together,
// since a template's memory grows with its field count (a template record may announce 16,000 fields).
// Every operation is O(1) amortised: LruMaps kept in use order.
import { LinkedList, type ListNode } from '../linked-list.js';
import { LruMap } from '../lru-map.js';
import type { Template } from './types.js';

export type EvictionReason = 'session' | 'exporter' | 'total';

/** The pool's view of a template stored in some TemplateStore. */
export interface PoolSlot {
  readonly template: Template;
  /** Where the pool keeps the slot; set and cleared by the pool only. */
  pooled: PoolNode | undefined;
  /** Removes the template from its store (the pool has already forgotten it). */
  evict(reason: EvictionReason): void;
}

export interface TemplatePoolLimits {
  readonly perGroup: number;
  readonly total: number;
  readonly totalFields: number;
}

/** A slot's place in its group's use order. */
interface PoolNode extends ListNode<PoolNode> {
  readonly slot: PoolSlot;
  readonly group: Group;
  readonly fields: number;
}

/** A group's slots, least recently used first. */
interface Group {
  readonly name: string;
  readonly slots: LinkedList<PoolNode>;
}

export class TemplatePool {
  readonly limits: TemplatePoolLimits;
  /** Groups in order of last use, least recent first. */
  readonly #groups = new LruMap<string, Group>();
  #size = 0;
  #fields = 0;

  constructor(limits: TemplatePoolLimits) {
    this.limits = limits;
  }

  get size(): number {
    return this.#size;
  }

  get fields(): number {
    return this.#fields;
  }

  /** Adds a slot, evicting what the bounds require first. */
  admit(slot: PoolSlot, groupName: string): void {
    let group = this.#groups.get(groupName);
    if (group !== undefined && group.slots.size >= this.limits.perGroup) this.#evictFrom(group, 'exporter');
    const fields = slot.template.fields.length;
    while (this.#size > 0 && (this.#size >= this.limits.total || this.#fields + fields > this.limits.totalFields)) {
      this.#evictFrom(this.#groups.oldest()![1], 'total');
    }
    group = this.#groups.get(groupName) ?? { name: groupName, slots: new LinkedList<PoolNode>() };
    slot.pooled = { slot, group, fields, older: undefined, newer: undefined };
    group.slots.append(slot.pooled);
    this.#size++;
    this.#fields += fields;
    this.#groups.set(groupName, group);
  }

  /** Marks a slot used: it and its group move to the end of the eviction order. */
  touch(slot: PoolSlot): void {
    const node = slot.pooled;
    if (node === undefined) return;
    node.group.slots.moveToNewest(node);
    this.#groups.touch(node.group.name);
  }

  /** Forgets a slot its store removed (withdrawn, expired, replaced, or the session ended). */
  release(slot: PoolSlot): void {
    const pooled = slot.pooled;
    if (pooled === undefined) return;
    slot.pooled = undefined;
    pooled.group.slots.unlink(pooled);
    this.#size--;
    this.#fields -= pooled.fields;
    if (pooled.group.slots.size === 0) this.#groups.delete(pooled.group.name);
  }

  #evictFrom(group: Group, reason: EvictionReason): void {
    const slot = group.slots.oldest!.slot;
    this.release(slot);
    slot.evict(reason);
  }
}
