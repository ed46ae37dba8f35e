// Templates of one transport session (RFC 7011 §8): keyed by observation domain and template id, so two
// domains (or, with one store per session, two exporters) may use the same id for different layouts.
// Over UDP templates expire when not refreshed for templateTtlMs (§8.4) and withdrawals are ignored;
// over TCP, TLS and in files withdrawals are honoured and templates live as long as the store.
import { IPFIX_ERR, IpfixError } from './errors.js';
import { type Template } from './types.js';

export type Transport = 'udp' | 'tcp' | 'tls' | 'file';

export interface TemplateStoreOptions {
  transport: Transport;
  /** UDP only: a template not refreshed for this long is forgotten. Default 30 minutes, as Antrea's. */
  templateTtlMs?: number;
  /** Clock for expiry, in ms; injectable for tests. */
  now?: () => number;
  /** Upper bound on stored templates, so that no exporter can grow memory without limit. */
  maxTemplates?: number;
}

interface Entry {
  template: Template;
  seenAt: number;
}

const key = (odid: number, templateId: number) => odid * 65536 + templateId;

export class TemplateStore {
  readonly transport: Transport;
  readonly templateTtlMs: number;
  readonly maxTemplates: number;
  readonly #now: () => number;
  readonly #entries = new Map<number, Entry>();

  constructor(opts: TemplateStoreOptions) {
    this.transport = opts.transport;
    this.templateTtlMs = opts.templateTtlMs ?? 1_800_000;
    this.maxTemplates = opts.maxTemplates ?? 65536;
    this.#now = opts.now ?? Date.now;
  }

  /** Whether template withdrawals take effect (RFC 7011 §8.4: never over UDP). */
  get honoursWithdrawals(): boolean {
    return this.transport !== 'udp';
  }

  get(observationDomainId: number, templateId: number): Template | undefined {
    const k = key(observationDomainId, templateId);
    const e = this.#entries.get(k);
    if (e === undefined) return undefined;
    if (this.transport === 'udp' && this.#now() - e.seenAt > this.templateTtlMs) {
      this.#entries.delete(k);
      return undefined;
    }
    return e.template;
  }

  /** Adds, refreshes or redefines a template. Throws TOO_MANY_TEMPLATES beyond maxTemplates. */
  set(template: Template): void {
    const k = key(template.observationDomainId, template.id);
    const existing = this.#entries.get(k);
    if (existing === undefined && this.#entries.size >= this.maxTemplates) {
      this.expire();
      if (this.#entries.size >= this.maxTemplates) {
        throw new IpfixError(IPFIX_ERR.TOO_MANY_TEMPLATES, `template store is full (${this.maxTemplates} templates)`, {
          observationDomainId: template.observationDomainId,
          templateId: template.id,
        });
      }
    }
    // Refreshing an identical template keeps the existing object, and with it its compiled decoder.
    const kept = existing !== undefined && sameLayout(existing.template, template) ? existing.template : template;
    this.#entries.set(k, { template: kept, seenAt: this.#now() });
  }

  /**
   * Applies a withdrawal; returns whether it took effect. 'all' withdraws every template of the
   * domain of the given kind (options templates or not), as a withdrawal with the set id does.
   */
  withdraw(observationDomainId: number, templateId: number | 'all', kind: 'template' | 'optionsTemplate' = 'template'): boolean {
    if (!this.honoursWithdrawals) return false;
    if (templateId !== 'all') return this.#entries.delete(key(observationDomainId, templateId));
    let any = false;
    for (const [k, e] of this.#entries) {
      const isOptions = e.template.scopeFieldCount > 0;
      if (e.template.observationDomainId === observationDomainId && isOptions === (kind === 'optionsTemplate')) {
        this.#entries.delete(k);
        any = true;
      }
    }
    return any;
  }

  delete(observationDomainId: number, templateId: number): boolean {
    return this.#entries.delete(key(observationDomainId, templateId));
  }

  /** Drops expired UDP templates now (get() also drops them lazily). */
  expire(): number {
    if (this.transport !== 'udp') return 0;
    const now = this.#now();
    let n = 0;
    for (const [k, e] of this.#entries) {
      if (now - e.seenAt > this.templateTtlMs) {
        this.#entries.delete(k);
        n++;
      }
    }
    return n;
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }

  all(): Template[] {
    return [...this.#entries.values()].map((e) => e.template);
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
