// Templates of one transport session (RFC 7011 §8): keyed by observation domain and template id, so two
// domains (or, with one store per session, two exporters) may use the same id for different layouts.
// Over UDP templates expire when not refreshed for templateTtlMs (§8.4) and withdrawals are ignored;
// over TCP, TLS and in files withdrawals are honoured and templates live as long as the store.
//
// Every operation costs O(1) amortised per template, whatever the store holds, because anyone who can
// reach a collector chooses what it holds: entries are kept in refresh order (so expiry pops the oldest
// and stops at the first live one), and per domain and kind (so "withdraw all" visits only what it
// removes). A full store evicts its oldest template rather than refusing the new one; a TemplatePool,
// when given, bounds templates across stores as well. Evictions are reported to `onEvict`.
import { LinkedList, type ListNode } from '../linked-list.js';
import type { EvictionReason, PoolSlot, TemplatePool } from './template-pool.js';
import type { Template } from './types.js';

export type Transport = 'udp' | 'tcp' | 'tls' | 'file';
export type { EvictionReason } from './template-pool.js';

export interface TemplateStoreOptions {
  transport: Transport;
  /** UDP only: a template not refreshed for this long is forgotten. Default 30 minutes, as Antrea's. */
  templateTtlMs?: number;
  /** Clock for expiry, in ms; injectable for tests. */
  now?: () => number;
  /** Templates kept at most; beyond, the least recently refreshed is evicted. */
  maxTemplates?: number;
  /** A budget shared with other stores, and this store's group in it (the exporter's address). */
  pool?: { readonly pool: TemplatePool; readonly group: string };
  onEvict?: (template: Template, reason: EvictionReason) => void;
}

const key = (odid: number, templateId: number) => odid * 65536 + templateId;
/** The "withdraw all" index: domain and kind. */
const kindKey = (odid: number, options: boolean) => odid * 2 + (options ? 1 : 0);

class Entry implements PoolSlot, ListNode<Entry> {
  pooled: PoolSlot['pooled'] = undefined;
  older: Entry | undefined = undefined;
  newer: Entry | undefined = undefined;

  constructor(
    readonly store: TemplateStore,
    readonly key: number,
    public template: Template,
    public seenAt: number,
  ) {}

  evict(reason: EvictionReason): void {
    this.store.evicted(this, reason);
  }
}

export class TemplateStore {
  readonly transport: Transport;
  readonly templateTtlMs: number;
  readonly maxTemplates: number;
  readonly #now: () => number;
  readonly #pool: TemplateStoreOptions['pool'];
  readonly #onEvict: TemplateStoreOptions['onEvict'];
  readonly #entries = new Map<number, Entry>();
  /** The entries in refresh order, least recent first. */
  readonly #order = new LinkedList<Entry>();
  readonly #byKind = new Map<number, Set<Entry>>();

  constructor(opts: TemplateStoreOptions) {
    this.transport = opts.transport;
    this.templateTtlMs = opts.templateTtlMs ?? 1_800_000;
    this.maxTemplates = opts.maxTemplates ?? 65536;
    this.#now = opts.now ?? Date.now;
    this.#pool = opts.pool;
    this.#onEvict = opts.onEvict;
  }

  /** Whether template withdrawals take effect (RFC 7011 §8.4: never over UDP). */
  get honoursWithdrawals(): boolean {
    return this.transport !== 'udp';
  }

  /** The template, if known and not expired; a use, for the pool's eviction order. */
  get(observationDomainId: number, templateId: number): Template | undefined {
    const e = this.#entries.get(key(observationDomainId, templateId));
    if (e === undefined) return undefined;
    if (this.#expired(e, this.#now())) {
      this.#remove(e);
      return undefined;
    }
    this.#pool?.pool.touch(e);
    return e.template;
  }

  /**
   * Adds, refreshes or redefines a template, evicting the oldest when the store is full. Returns the template
   * stored: the one already there when it has the same layout (so what was derived from it stays valid).
   */
  set(template: Template): Template {
    const k = key(template.observationDomainId, template.id);
    const existing = this.#entries.get(k);
    const now = this.#now();
    if (existing !== undefined) {
      existing.seenAt = now;
      this.#order.moveToNewest(existing);
      if (sameLayout(existing.template, template)) {
        this.#pool?.pool.touch(existing);
        return existing.template;
      }
      // A redefinition: its cost in the pool (fields) and its kind may change.
      this.#remove(existing);
      this.#entries.set(k, existing);
      this.#order.append(existing);
      existing.template = template;
      this.#index(existing, true);
      this.#pool?.pool.admit(existing, this.#pool.group);
      return template;
    }
    if (this.#entries.size >= this.maxTemplates) this.#evictOldest(now);
    const entry = new Entry(this, k, template, now);
    this.#entries.set(k, entry);
    this.#order.append(entry);
    this.#index(entry, true);
    this.#pool?.pool.admit(entry, this.#pool.group);
    return template;
  }

  /**
   * Applies a withdrawal; returns whether it took effect. 'all' withdraws every template of the
   * domain of the given kind (options templates or not), as a withdrawal with the set id does.
   */
  withdraw(observationDomainId: number, templateId: number | 'all', kind: 'template' | 'optionsTemplate' = 'template'): boolean {
    if (!this.honoursWithdrawals) return false;
    if (templateId !== 'all') return this.delete(observationDomainId, templateId);
    const entries = this.#byKind.get(kindKey(observationDomainId, kind === 'optionsTemplate'));
    if (entries === undefined) return false;
    for (const e of entries) this.#remove(e);
    return true;
  }

  delete(observationDomainId: number, templateId: number): boolean {
    const e = this.#entries.get(key(observationDomainId, templateId));
    if (e === undefined) return false;
    this.#remove(e);
    return true;
  }

  /** Drops expired UDP templates now (get() also drops them lazily); returns how many. */
  expire(): number {
    if (this.transport !== 'udp') return 0;
    const now = this.#now();
    let n = 0;
    for (const e of this.#order) {
      if (!this.#expired(e, now)) break;
      this.#remove(e);
      n++;
    }
    return n;
  }

  /** Forgets every template (the session ended), returning them to the pool. */
  clear(): void {
    for (const e of this.#entries.values()) this.#pool?.pool.release(e);
    this.#entries.clear();
    this.#order.clear();
    this.#byKind.clear();
  }

  get size(): number {
    return this.#entries.size;
  }

  all(): Template[] {
    return [...this.#entries.values()].map((e) => e.template);
  }

  /** Called by the pool: the entry was evicted to keep the shared budget. */
  evicted(e: Entry, reason: EvictionReason): void {
    this.#unlink(e);
    this.#onEvict?.(e.template, reason);
  }

  #expired(e: Entry, now: number): boolean {
    return this.transport === 'udp' && now - e.seenAt > this.templateTtlMs;
  }

  #evictOldest(now: number): void {
    const oldest = this.#order.oldest!;
    const expired = this.#expired(oldest, now);
    this.#remove(oldest);
    if (!expired) this.#onEvict?.(oldest.template, 'session');
  }

  #remove(e: Entry): void {
    this.#pool?.pool.release(e);
    this.#unlink(e);
  }

  #unlink(e: Entry): void {
    this.#entries.delete(e.key);
    this.#order.unlink(e);
    this.#index(e, false);
  }

  #index(e: Entry, add: boolean): void {
    if (!this.honoursWithdrawals) return;
    const k = kindKey(e.template.observationDomainId, e.template.scopeFieldCount > 0);
    let set = this.#byKind.get(k);
    if (add) {
      if (set === undefined) this.#byKind.set(k, (set = new Set()));
      set.add(e);
    } else if (set !== undefined) {
      set.delete(e);
      if (set.size === 0) this.#byKind.delete(k);
    }
  }
}

export function sameLayout(a: Template, b: Template): boolean {
  if (a.id !== b.id || a.observationDomainId !== b.observationDomainId || a.scopeFieldCount !== b.scopeFieldCount) return false;
  if (a.fields.length !== b.fields.length) return false;
  for (let i = 0; i < a.fields.length; i++) {
    const x = a.fields[i];
    const y = b.fields[i];
    if (x === undefined || y === undefined || x.ie.pen !== y.ie.pen || x.ie.id !== y.ie.id || x.length !== y.length || x.scope !== y.scope) return false;
  }
  return true;
}
