// What one transport session sends: an IPFIX exporting process of its own (Antrea starts a new one per
// connection), so a new session starts its sequence numbers at 0 and announces both templates when it
// opens, before any data; over UDP the templates are announced again every templateRefreshTimeout, by
// the next batch or, when no data flows, by the exporter's timer (template-refresh.ts). Records are
// packed many to a message, up to the message size. In JSON mode each record is one line (over UDP, one
// datagram), with no templates.
import { IpfixError } from '../../lib/ipfix/errors.js';
import { MessageEncoder } from '../../lib/ipfix/message-encoder.js';
import { type FlowRecord } from '../../schemas/flow-record.js';
import { type ExportedRecord } from '../types.js';
import { jsonLine } from './json-lines.js';
import { type ExportTemplates } from './templates.js';

export interface SessionOptions {
  readonly format: 'IPFIX' | 'JSON';
  readonly templates: ExportTemplates;
  readonly observationDomainId: number;
  readonly maxMessageSize: number;
  /** 0 = templates only at the start of the session (TCP and TLS). */
  readonly templateRefreshMs: number;
  readonly now: () => number;
}

export interface Encoded {
  readonly chunks: Uint8Array[];
  /** Records the template cannot carry (a value out of its element's range): skipped, with the first error. */
  readonly invalid: number;
  readonly firstError?: string;
  readonly templatesSent: boolean;
}

export class ExportSession {
  readonly #o: SessionOptions;
  readonly #encoder: MessageEncoder;
  #templatesAt = -Infinity;

  constructor(o: SessionOptions) {
    this.#o = o;
    this.#encoder = new MessageEncoder({ observationDomainId: o.observationDomainId, maxMessageSize: o.maxMessageSize, exportTime: () => Math.floor(o.now() / 1000) });
  }

  encode(records: readonly ExportedRecord[]): Encoded {
    return this.#o.format === 'JSON' ? this.#json(records) : this.#ipfix(records);
  }

  /** Both templates, in a message of their own (none in JSON mode). */
  announce(): Uint8Array[] {
    if (this.#o.format === 'JSON') return [];
    this.#addTemplates(this.#o.now());
    return this.#encoder.flush();
  }

  /** When the templates are due again; undefined when they never are (TCP, TLS, JSON). */
  refreshDueAt(): number | undefined {
    return this.#o.format === 'IPFIX' && this.#o.templateRefreshMs > 0 ? this.#templatesAt + this.#o.templateRefreshMs : undefined;
  }

  #addTemplates(now: number): void {
    this.#encoder.addTemplate(this.#o.templates.ipv4.template);
    this.#encoder.addTemplate(this.#o.templates.ipv6.template);
    this.#templatesAt = now;
  }

  #json(records: readonly ExportedRecord[]): Encoded {
    const now = new Date(this.#o.now());
    const chunks = records.map(({ record }) => Buffer.from(jsonLine(this.#o.templates.of(record), record, now)));
    return { chunks, invalid: 0, templatesSent: false };
  }

  #ipfix(records: readonly ExportedRecord[]): Encoded {
    const enc = this.#encoder;
    const { templates } = this.#o;
    const now = this.#o.now();
    const due = this.refreshDueAt();
    const templatesSent = this.#templatesAt === -Infinity || (due !== undefined && now >= due);
    if (templatesSent) this.#addTemplates(now);
    let invalid = 0;
    let firstError: string | undefined;
    for (const { record } of records) {
      const t = templates.of(record);
      try {
        enc.addRecord(t.template, t.values(record as FlowRecord));
      } catch (err) {
        if (!(err instanceof IpfixError)) throw err;
        invalid++;
        firstError ??= err.message;
      }
    }
    return { chunks: enc.flush(), invalid, templatesSent, ...(firstError !== undefined && { firstError }) };
  }
}
