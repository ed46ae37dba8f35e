// A budget of templates shared by many TemplateStores: at most `perGroup` templates per group (the ingest
// service groups sessions by exporter address, so forged UDP source ports share one budget) and `total`
// in all. When a bound is reached the least recently used template goes: the group's own for a full group,
// and, for a full pool, one of the least recently active group. An exporter that keeps using its templates
// is therefore the last to lose them, and a flood of new templates, from one address or from many forged
// ones, evicts the flood's own templates first. `totalFields` bounds the fields of all templates together,
// since a template's memory grows with its field count (a template record may announce 16,000 fields).
// Every operation is O(1) amortised: Maps kept in use order.
import { type Template } from './types.js';

export type EvictionReason = 'session' | 'exporter' | 'total';

/** The pool's view of a template stored in some TemplateStore. */
export interface PoolSlot {
  readonly template: Template;
  /** Removes the template from its store (the pool has already forgotten it). */
  evict(reason: EvictionReason): void;
}

export interface TemplatePoolLimits {
  readonly perGroup: number;
  readonly total: number;
  readonly totalFields: number;
}

type Group = Map<PoolSlot, string>;

export class TemplatePool {
  readonly limits: TemplatePoolLimits;
  /** Groups in order of last use, least recent first; each holds its slots in the same order. */
  readonly #groups = new Map<string, Group>();
  readonly #groupOf = new Map<PoolSlot, Group>();
  #fields = 0;

  constructor(limits: TemplatePoolLimits) {
    this.limits = limits;
  }

  get size(): number {
    return this.#groupOf.size;
  }

  get fields(): number {
    return this.#fields;
  }

  /** Adds a slot, evicting what the bounds require first. */
  admit(slot: PoolSlot, groupName: string): void {
    let group = this.#groups.get(groupName);
    if (group !== undefined && group.size >= this.limits.perGroup) this.#evictFrom(group, 'exporter');
    const fields = slot.template.fields.length;
    while (this.#groupOf.size > 0 && (this.#groupOf.size >= this.limits.total || this.#fields + fields > this.limits.totalFields)) {
      this.#evictFrom(this.#groups.values().next().value as Group, 'total');
    }
    group = this.#groups.get(groupName) ?? new Map<PoolSlot, string>();
    group.set(slot, groupName);
    this.#groupOf.set(slot, group);
    this.#fields += fields;
    this.#moveToEnd(groupName, group);
  }

  /** Marks a slot used: it and its group move to the end of the eviction order. */
  touch(slot: PoolSlot): void {
    const group = this.#groupOf.get(slot);
    if (group === undefined) return;
    const name = group.get(slot)!;
    group.delete(slot);
    group.set(slot, name);
    this.#moveToEnd(name, group);
  }

  /** Forgets a slot its store removed (withdrawn, expired, replaced, or the session ended). */
  release(slot: PoolSlot): void {
    const group = this.#groupOf.get(slot);
    if (group === undefined) return;
    const name = group.get(slot)!;
    group.delete(slot);
    this.#groupOf.delete(slot);
    this.#fields -= slot.template.fields.length;
    if (group.size === 0) this.#groups.delete(name);
  }

  #evictFrom(group: Group, reason: EvictionReason): void {
    const slot = group.keys().next().value as PoolSlot;
    this.release(slot);
    slot.evict(reason);
  }

  #moveToEnd(name: string, group: Group): void {
    this.#groups.delete(name);
    this.#groups.set(name, group);
  }
}
