// Transport sessions (RFC 7011 §8): the scope of templates. A TCP or TLS session is one connection and
// ends with it, templates and all. A UDP "session" is the exporter's address and port; it ends when it
// has not delivered a decodable message for the template lifetime (go-ipfix tears it down the same way),
// or when the table is full and it is the least recently active. Each session holds its template store
// (keyed by observation domain and template id inside) and one compiled transcoder per template.
import { TemplateStore } from '../lib/ipfix/template-store.js';
import { type Template } from '../lib/ipfix/types.js';
import { type AvroFraming } from '../schemas/avro.js';
import { type MessageContext } from './records/context.js';
import { compileTranscoder, type Transcoder } from './records/transcode.js';
import { type Transport } from './config.js';
import { type Endpoint } from './listeners/address.js';

let nextSessionNumber = 1;

export class ExporterSession {
  readonly id: string;
  /** 'file' for messages read from a capture file (`flowagg pipeline`): a stream whose templates never expire. */
  readonly transport: Transport | 'file';
  readonly exporter: Endpoint;
  readonly templates: TemplateStore;
  /** The facts of the message being transcoded; one object per session, updated for each message. */
  readonly context: MessageContext = { exportTime: 0, sequenceNumber: 0, receiveTime: 0, systemInitTime: undefined };
  /** systemInitTimeMilliseconds per observation domain, from options records. */
  readonly systemInitTime = new Map<number, number>();
  lastActivity: number;
  readonly #framing: AvroFraming | undefined;
  readonly #transcoders = new Map<number, { template: Template; transcoder: Transcoder }>();

  /** `framing`: how the FlowRecords are framed (log.valueFormat); single-object by default. */
  constructor(transport: Transport | 'file', exporter: Endpoint, opts: { templateTtlMs: number; now: () => number; framing?: AvroFraming | undefined }) {
    this.#framing = opts.framing;
    this.transport = transport;
    this.exporter = exporter;
    const where = exporter.address.includes(':') ? `[${exporter.address}]:${exporter.port}` : `${exporter.address}:${exporter.port}`;
    // Stream sessions from the same address and port may overlap (a reconnect racing the old close).
    this.id = transport === 'udp' ? `udp ${where}` : `${transport} ${where} #${nextSessionNumber++}`;
    this.templates = new TemplateStore({ transport, templateTtlMs: opts.templateTtlMs, now: opts.now });
    this.lastActivity = opts.now();
  }

  /** The transcoder of a template, compiled once per template layout (a redefinition compiles anew). */
  transcoder(template: Template): Transcoder {
    const key = template.observationDomainId * 65536 + template.id;
    const cached = this.#transcoders.get(key);
    if (cached !== undefined && cached.template === template) return cached.transcoder;
    const transcoder = compileTranscoder(template, { exporterAddress: this.exporter.address, exporterPort: this.exporter.port, transport: this.transport }, this.#framing);
    this.#transcoders.set(key, { template, transcoder });
    return transcoder;
  }

  /** Forgets compiled transcoders whose template is gone (withdrawn or expired). */
  pruneTranscoders(): void {
    for (const [key, { template }] of this.#transcoders) {
      if (this.templates.get(template.observationDomainId, template.id) !== template) this.#transcoders.delete(key);
    }
  }
}

export interface UdpSessionTableOptions {
  readonly templateTtlMs: number;
  readonly maxSessions: number;
  readonly now: () => number;
  readonly framing?: AvroFraming | undefined;
}

/** UDP sessions by exporter address and port, in least-recently-active order. */
export class UdpSessionTable {
  readonly #sessions = new Map<string, ExporterSession>();
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
      const [oldestKey, oldest] = this.#sessions.entries().next().value as [string, ExporterSession];
      this.#sessions.delete(oldestKey);
      evicted(oldest);
    }
    const session = new ExporterSession('udp', exporter, { templateTtlMs: this.#opts.templateTtlMs, now: this.#opts.now, framing: this.#opts.framing });
    this.#sessions.set(key, session);
    return session;
  }

  /** Marks a session active: it moves to the end of the eviction order. */
  touch(session: ExporterSession): void {
    session.lastActivity = this.#opts.now();
    const key = `${session.exporter.address}|${session.exporter.port}`;
    this.#sessions.delete(key);
    this.#sessions.set(key, session);
  }

  /** Removes and returns the sessions idle for longer than the template lifetime; expires old templates of the others. */
  sweep(): ExporterSession[] {
    const now = this.#opts.now();
    const expired: ExporterSession[] = [];
    for (const [key, session] of this.#sessions) {
      if (now - session.lastActivity > this.#opts.templateTtlMs) {
        this.#sessions.delete(key);
        expired.push(session);
      } else if (session.templates.expire() > 0) {
        session.pruneTranscoders();
      }
    }
    return expired;
  }

  all(): IterableIterator<ExporterSession> {
    return this.#sessions.values();
  }
}
