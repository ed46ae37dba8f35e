// Transport sessions (RFC 7011 §8): the scope of templates. A TCP or TLS session is one connection and
// ends with it, templates and all. A UDP "session" is the exporter's address and port; it ends when it
// has not delivered a decodable message for the template lifetime (go-ipfix tears it down the same way),
// or when the table is full and it is the least recently active. Each session holds its template store
// (keyed by observation domain and template id inside), whose templates count against the exporter's and
// the process's budget (TemplatePool); transcoders are shared by all sessions (TranscoderCache).
import { type TemplatePool } from '../lib/ipfix/template-pool.js';
import { LruMap } from '../lib/lru-map.js';
import { type EvictionReason, TemplateStore } from '../lib/ipfix/template-store.js';
import { type Template } from '../lib/ipfix/types.js';
import { type MessageContext, sessionContext } from './records/context.js';
import { type Transport } from './config.js';
import { type Endpoint } from '../lib/listeners/address.js';

let nextSessionNumber = 1;

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
  readonly exporter: Endpoint;
  readonly templates: TemplateStore;
  /** The facts of the message being transcoded; one object per session, updated for each message. */
  readonly context: MessageContext;
  /** systemInitTimeMilliseconds per observation domain, from options records. */
  readonly systemInitTime = new Map<number, number>();
  lastActivity: number;

  constructor(transport: Transport | 'file', exporter: Endpoint, opts: SessionOptions) {
    this.transport = transport;
    this.exporter = exporter;
    const where = exporter.address.includes(':') ? `[${exporter.address}]:${exporter.port}` : `${exporter.address}:${exporter.port}`;
    // Stream sessions from the same address and port may overlap (a reconnect racing the old close).
    this.id = transport === 'udp' ? `udp ${where}` : `${transport} ${where} #${nextSessionNumber++}`;
    this.templates = new TemplateStore({
      transport, templateTtlMs: opts.templateTtlMs, now: opts.now,
      ...(opts.maxTemplates !== undefined && { maxTemplates: opts.maxTemplates }),
      ...(opts.pool !== undefined && { pool: { pool: opts.pool, group: exporter.address } }),
      ...(opts.onEvict !== undefined && { onEvict: opts.onEvict }),
    });
    this.context = sessionContext({ exporterAddress: exporter.address, exporterPort: exporter.port, transport });
    this.lastActivity = opts.now();
  }

  /** The session ended: its templates leave the shared budget. */
  close(): void {
    this.templates.clear();
    this.systemInitTime.clear();
  }
}

export interface UdpSessionTableOptions {
  readonly templateTtlMs: number;
  readonly maxSessions: number;
  readonly now: () => number;
  /** Makes the session of a new exporter. */
  readonly create: (exporter: Endpoint) => ExporterSession;
}

/** UDP sessions by exporter address and port, in least-recently-active order. */
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
  get(exporter: Endpoint, evicted: (s: ExporterSession) => void): ExporterSession {
    const key = `${exporter.address}|${exporter.port}`;
    const existing = this.#sessions.get(key);
    if (existing !== undefined) return existing;
    if (this.#sessions.size >= this.#opts.maxSessions) {
      const oldest = this.#sessions.shift()![1];
      oldest.close();
      evicted(oldest);
    }
    const session = this.#opts.create(exporter);
    this.#sessions.set(key, session);
    return session;
  }

  /** Marks a session active: it moves to the end of the eviction order. */
  touch(session: ExporterSession): void {
    session.lastActivity = this.#opts.now();
    this.#sessions.touch(`${session.exporter.address}|${session.exporter.port}`);
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
