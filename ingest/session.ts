// Transport sessions (RFC 7011 §8): the scope of templates. A TCP or TLS session is one connection and
// ends with it, templates and all. A UDP "session" is the exporter's address and port; it ends when it
// has not delivered a decodable message for the template lifetime (go-ipfix tears it down the same way),
// or when the table is full and it is the least recently active. Each session holds its template store
// (keyed by observation domain and template id inside), whose templates count against the exporter's and
// the process's budget (TemplatePool); transcoders are shared by all sessions (TranscoderCache).
// NetFlow v9 and v5 sessions are UDP sessions of their own protocol, keyed by the exporter's address only: RFC
// 3954 §5.1 scopes v9 templates by source address and Source ID (the session's observation domains), so a
// router that changes its source port keeps its templates, and a record's exporterPort is that of the
// datagram that carried it.
import type { TemplatePool } from '../lib/ipfix/template-pool.js';
import { LruMap } from '../lib/lru-map.js';
import { type EvictionReason, TemplateStore } from '../lib/ipfix/template-store.js';
import type { Template } from '../lib/ipfix/types.js';
import { type MessageContext, sessionContext } from './records/context.js';
import type { Transport } from './config.js';
import type { Endpoint } from '../lib/listeners/address.js';
import { SamplingTable } from './records/sampling.js';

/** What a session's messages are: IPFIX (over any transport), or NetFlow v9 or v5 packets (over UDP). */
export type SessionProtocol = 'ipfix' | 'netflow_v9' | 'netflow_v5';

let nextSessionNumber = 1;

/** Domains (Source IDs, v5 engines) whose announced sampling a session keeps. */
const MAX_SAMPLING_DOMAINS = 256;

export interface SessionOptions {
  readonly templateTtlMs: number;
  readonly now: () => number;
  /** Templates one session may hold. */
  readonly maxTemplates?: number;
  /** The budget shared across sessions; the session's group in it is the exporter's address. */
  readonly pool?: TemplatePool;
  readonly onEvict?: (template: Template, reason: EvictionReason) => void;
}

export class ExporterSession {
  readonly id: string;
  /** 'file' for messages read from a capture file (`flowagg pipeline`): a stream whose templates never expire. */
  readonly transport: Transport | 'file';
  readonly protocol: SessionProtocol;
  exporter: Endpoint;
  readonly templates: TemplateStore;
  /** The facts of the message being transcoded; one object per session, updated for each message. */
  readonly context: MessageContext;
  /** systemInitTimeMilliseconds per observation domain, from options records. */
  readonly systemInitTime = new Map<number, number>();
  /** The sampling announced per observation domain (options records, v5 headers). */
  readonly sampling = new Map<number, SamplingTable>();
  lastActivity: number;

  constructor(transport: Transport | 'file', exporter: Endpoint, opts: SessionOptions, protocol: SessionProtocol = 'ipfix') {
    this.transport = transport;
    this.protocol = protocol;
    this.exporter = exporter;
    const where = exporter.address.includes(':') ? `[${exporter.address}]:${exporter.port}` : `${exporter.address}:${exporter.port}`;
    // Stream sessions from the same address and port may overlap (a reconnect racing the old close).
    this.id = protocol !== 'ipfix' ? `${protocol} ${exporter.address}` : transport === 'udp' ? `udp ${where}` : `${transport} ${where} #${nextSessionNumber++}`;
    this.templates = new TemplateStore({
      transport, templateTtlMs: opts.templateTtlMs, now: opts.now,
      ...(opts.maxTemplates !== undefined && { maxTemplates: opts.maxTemplates }),
      ...(opts.pool !== undefined && { pool: { pool: opts.pool, group: exporter.address } }),
      ...(opts.onEvict !== undefined && { onEvict: opts.onEvict }),
    });
    this.context = sessionContext(this.#origin(exporter.port));
    this.lastActivity = opts.now();
  }

  /** The session's key in a UDP session table. */
  get key(): string {
    return sessionKey(this.exporter, this.protocol);
  }

  /** A NetFlow exporter's datagram came from another source port: its records say so from now on. */
  movedTo(port: number): void {
    if (port === this.exporter.port) return;
    this.exporter = { address: this.exporter.address, port };
    this.context.origin = sessionContext(this.#origin(port)).origin;
  }

  /** The sampling table of a domain, made when first needed (a v5 sender may vary its engine at will: bounded). */
  samplingOf(observationDomainId: number): SamplingTable {
    let table = this.sampling.get(observationDomainId);
    if (table === undefined) {
      if (this.sampling.size >= MAX_SAMPLING_DOMAINS) this.sampling.clear();
      this.sampling.set(observationDomainId, (table = new SamplingTable()));
    }
    return table;
  }

  /** The session ended: its templates leave the shared budget. */
  close(): void {
    this.templates.clear();
    this.systemInitTime.clear();
    this.sampling.clear();
  }

  #origin(port: number) {
    return { exporterAddress: this.exporter.address, exporterPort: port, transport: this.protocol === 'ipfix' ? this.transport : this.protocol };
  }
}

/** IPFIX sessions by address and port (RFC 7011 §8.4); NetFlow ones by address (RFC 3954 §5.1). */
export function sessionKey(exporter: Endpoint, protocol: SessionProtocol): string {
  return protocol === 'ipfix' ? `${exporter.address}|${exporter.port}` : `${protocol}|${exporter.address}`;
}

export interface UdpSessionTableOptions {
  readonly templateTtlMs: number;
  readonly maxSessions: number;
  readonly now: () => number;
  /** Makes the session of a new exporter. */
  readonly create: (exporter: Endpoint, protocol: SessionProtocol) => ExporterSession;
}

/** UDP sessions (IPFIX and NetFlow: one budget) in least-recently-active order. */
export class UdpSessionTable {
  readonly #sessions = new LruMap<string, ExporterSession>();
  readonly #opts: UdpSessionTableOptions;

  constructor(opts: UdpSessionTableOptions) {
    this.#opts = opts;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The session of an exporter, created when new; `evicted` receives a session pushed out by a full table. */
  get(exporter: Endpoint, evicted: (s: ExporterSession) => void, protocol: SessionProtocol = 'ipfix'): ExporterSession {
    const key = sessionKey(exporter, protocol);
    const existing = this.#sessions.get(key);
    if (existing !== undefined) {
      existing.movedTo(exporter.port);
      return existing;
    }
    if (this.#sessions.size >= this.#opts.maxSessions) {
      const oldest = this.#sessions.shift()![1];
      oldest.close();
      evicted(oldest);
    }
    const session = this.#opts.create(exporter, protocol);
    this.#sessions.set(key, session);
    return session;
  }

  /** Marks a session active: it moves to the end of the eviction order. */
  touch(session: ExporterSession): void {
    session.lastActivity = this.#opts.now();
    this.#sessions.touch(session.key);
  }

  /** Removes and returns the sessions idle for longer than the template lifetime; expires old templates of the others. */
  sweep(): ExporterSession[] {
    const now = this.#opts.now();
    const expired: ExporterSession[] = [];
    for (const [key, session] of this.#sessions.entries()) {
      if (now - session.lastActivity > this.#opts.templateTtlMs) {
        this.#sessions.delete(key);
        session.close();
        expired.push(session);
      } else {
        session.templates.expire();
      }
    }
    return expired;
  }

  all(): IterableIterator<ExporterSession> {
    return this.#sessions.values();
  }
}
