// What one transport session sends: an IPFIX exporting process of its own (Antrea starts a new one per
// connection), so a new session starts its sequence numbers at 0 and announces Antrea's two templates
// when it opens, before any data, as Antrea does; a flow template (records no Antrea Agent made) is
// announced before its first record, so an Antrea-only export is what Antrea sends. Over UDP the
// templates announced are announced again every templateRefreshTimeout, by the next batch or, when no
// data flows, by the exporter's timer (template-refresh.ts). Records are packed many to a message, up to
// the message size. In JSON mode each record is one line (over UDP, one
// datagram), with no templates.
import { IpfixError } from '../../lib/ipfix/errors.js';
import { MessageEncoder } from '../../lib/ipfix/message-encoder.js';
import { ScannedRecord } from '../../schemas/flow-record-scanner.js';
import { scanEach } from '../flow-values.js';
import type { ExportBatch } from '../types.js';
import { jsonLine } from './json-lines.js';
import type { ExportTemplate, ExportTemplates } from './templates.js';

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
  /** Templates this session announced, in the order it did. */
  readonly #announced = new Set<ExportTemplate>();
  /** Each record of a batch is scanned here in turn: the template's values are read from it in place. */
  readonly #scanned = new ScannedRecord();

  constructor(o: SessionOptions) {
    this.#o = o;
    this.#encoder = new MessageEncoder({ observationDomainId: o.observationDomainId, maxMessageSize: o.maxMessageSize, exportTime: () => Math.floor(o.now() / 1000) });
  }

  encode(batch: ExportBatch): Encoded {
    return this.#o.format === 'JSON' ? this.#json(batch) : this.#ipfix(batch);
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

  /** Antrea's two first, then again every template this session announced, in the order it did. */
  #addTemplates(now: number): void {
    const { ipv4, ipv6 } = this.#o.templates;
    for (const t of this.#announced.size === 0 ? [ipv4, ipv6] : [...this.#announced]) this.#announce(t);
    this.#templatesAt = now;
  }

  #announce(t: ExportTemplate): void {
    this.#encoder.addTemplate(t.template);
    this.#announced.add(t);
  }

  #json(batch: ExportBatch): Encoded {
    const now = new Date(this.#o.now());
    const chunks: Buffer[] = [];
    scanEach(batch, this.#scanned, (_, r) => chunks.push(Buffer.from(jsonLine(this.#o.templates.of(r), r, now))));
    return { chunks, invalid: 0, templatesSent: false };
  }

  #ipfix(batch: ExportBatch): Encoded {
    const enc = this.#encoder;
    const { templates } = this.#o;
    const now = this.#o.now();
    const due = this.refreshDueAt();
    let templatesSent = this.#templatesAt === -Infinity || (due !== undefined && now >= due);
    if (templatesSent) this.#addTemplates(now);
    let invalid = 0;
    let firstError: string | undefined;
    scanEach(batch, this.#scanned, (_, r) => {
      const t = templates.of(r);
      if (!this.#announced.has(t)) {
        this.#announce(t);
        templatesSent = true;
      }
      try {
        enc.addRecord(t.template, t.values(r));
      } catch (err) {
        if (!(err instanceof IpfixError)) throw err;
        invalid++;
        firstError ??= err.message;
      }
    });
    return { chunks: enc.flush(), invalid, templatesSent, ...(firstError !== undefined && { firstError }) };
  }
}
