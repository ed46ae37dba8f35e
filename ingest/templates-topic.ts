// The cross-replica template problem (peers.md §3): behind a load balancer, a UDP exporter's template
// may reach one ingest replica and its data another. Every template learned over UDP is written to the
// compacted `ipfix.templates` topic, keyed by exporter address, port, observation domain and template id
// (so the topic holds the latest definition of each), and every replica reads the whole topic from the
// beginning, with a consumer group of its own that never commits, installing what other replicas learned
// into its own UDP session of that exporter. TCP and TLS templates are never shared: they belong to their
// connection, which only one replica sees.
//
// Value: JSON {v: 1, replica, record}, where record is the template record's IPFIX bytes (base64), so that
// the receiving replica resolves information elements exactly as if the exporter had sent it the template.
import { randomUUID } from 'node:crypto';
import { FlowaggError, errorMessage } from '../lib/errors.js';
import { decodeTemplateSet, templateRecordLength, writeTemplateRecord } from '../lib/ipfix/template-record.js';
import type { Template } from '../lib/ipfix/types.js';
import type { Consumer, LogRecord, MessageLog, Producer } from '../lib/log/types.js';
import type { Logger } from '../lib/telemetry/logger.js';
import { INGEST_TEMPLATE_RECORD } from './errors.js';
import type { Endpoint } from '../lib/listeners/address.js';
import { RateBudget, type RateBudgetLimits } from '../lib/rate-budget.js';

export interface SharedTemplate {
  readonly replica: string;
  readonly exporter: Endpoint;
  readonly template: Template;
  /** When the template was written, ms since the Unix epoch. */
  readonly timestamp: number;
}

export function templateKey(exporter: Endpoint, observationDomainId: number, templateId: number): Buffer {
  return Buffer.from(`${exporter.address}|${exporter.port}|${observationDomainId}|${templateId}`);
}

export function encodeTemplateValue(replica: string, template: Template): Buffer {
  const record = new Uint8Array(templateRecordLength(template));
  writeTemplateRecord(record, 0, template);
  return Buffer.from(JSON.stringify({ v: 1, replica, options: template.scopeFieldCount > 0, record: Buffer.from(record).toString('base64') }));
}

/** Reads a record of the topic; undefined for a tombstone. Throws INGEST_TEMPLATE_RECORD for anything unreadable. */
export function decodeTemplateRecord(r: Pick<LogRecord, 'key' | 'value' | 'timestamp'>): SharedTemplate | undefined {
  if (r.value === null) return undefined;
  const fail = (why: string) => new FlowaggError(INGEST_TEMPLATE_RECORD, `ipfix.templates record ${r.key?.toString() ?? '(no key)'}: ${why}`);
  const parts = r.key?.toString().split('|') ?? [];
  const [address, port, domain] = [parts[0] ?? '', Number(parts[1]), Number(parts[2])];
  if (parts.length !== 4 || address === '' || !Number.isInteger(port) || !Number.isInteger(domain)) throw fail('key is not address|port|domain|template');
  let value: { v?: unknown; replica?: unknown; options?: unknown; record?: unknown };
  try {
    value = JSON.parse(r.value.toString()) as typeof value;
  } catch (err) {
    throw fail(`value is not JSON: ${errorMessage(err)}`);
  }
  if (value.v !== 1 || typeof value.replica !== 'string' || typeof value.record !== 'string' || typeof value.options !== 'boolean') {
    throw fail(`unsupported value (version ${String(value.v)})`);
  }
  const bytes = Buffer.from(value.record, 'base64');
  const content = decodeTemplateSet(bytes, 0, bytes.length, domain, value.options, 0);
  const template = content.templates[0];
  if (content.errors.length > 0 || template === undefined || content.templates.length !== 1) {
    throw fail(`template record does not decode${content.errors[0] ? `: ${content.errors[0].message}` : ''}`);
  }
  return { replica: value.replica, exporter: { address, port }, template, timestamp: r.timestamp };
}

/** How much template publication a sender may cause (ingest.templates topic writes are not its own input). */
export const PUBLISH_BUDGET: RateBudgetLimits = { perSecond: 50, burst: 1000, totalPerSecond: 2000 };
/** Template writes to the log outstanding at once; beyond, publication waits for the exporter's next refresh. */
const MAX_IN_FLIGHT = 8;

/**
 * Publishes UDP templates, once per new or changed layout and again when the last publication is older
 * than half the template lifetime (so that the topic's copy does not look expired to other replicas).
 * What a sender may have published is bounded (RateBudget per exporter address, and writes in flight):
 * a flood of templates is learned and evicted locally, but never becomes a flood of log writes. What is
 * left out is published at the exporter's next refresh.
 */
export class TemplatePublisher {
  readonly replica: string;
  readonly #producer: Producer;
  readonly #topic: string;
  readonly #refreshMs: number;
  readonly #logger: Logger;
  /** Per exporter (address|port), per domain and template id, what was published and when. */
  readonly #published = new Map<string, Map<number, { template: Template; at: number }>>();
  readonly #budget: RateBudget;
  readonly #now: () => number;
  #inFlight = 0;
  published = 0;

  constructor(opts: { producer: Producer; topic: string; templateTtlMs: number; logger: Logger; replica?: string; now?: () => number; budget?: RateBudgetLimits }) {
    this.replica = opts.replica ?? randomUUID();
    this.#producer = opts.producer;
    this.#topic = opts.topic;
    this.#refreshMs = opts.templateTtlMs / 2;
    this.#logger = opts.logger;
    this.#now = opts.now ?? Date.now;
    this.#budget = new RateBudget(opts.budget ?? PUBLISH_BUDGET, this.#now);
  }

  /** Returns how many of the templates it published, and how many it had to leave out. */
  publish(exporter: Endpoint, templates: readonly Template[]): { published: number; skipped: number } {
    const now = this.#now();
    const id = exporterId(exporter);
    let mine = this.#published.get(id);
    const due = templates.filter((t) => {
      const last = mine?.get(t.observationDomainId * 65536 + t.id);
      return last === undefined || last.template !== t || now - last.at >= this.#refreshMs;
    });
    if (due.length === 0) return { published: 0, skipped: 0 };
    const allowed = this.#inFlight >= MAX_IN_FLIGHT ? 0 : this.#budget.take(exporter.address, due.length);
    if (allowed === 0) return { published: 0, skipped: due.length };
    if (mine === undefined) this.#published.set(id, (mine = new Map()));
    const records = due.slice(0, allowed).map((t) => {
      mine.set(t.observationDomainId * 65536 + t.id, { template: t, at: now });
      return { key: templateKey(exporter, t.observationDomainId, t.id), value: encodeTemplateValue(this.replica, t), timestamp: now, template: t };
    });
    this.published += records.length;
    this.#inFlight++;
    // Not through the flows queue: templates are few, and a lost one is resent by the exporter anyway.
    this.#producer
      .send(this.#topic, records)
      .catch((err: unknown) => {
        for (const r of records) mine.delete(r.template.observationDomainId * 65536 + r.template.id);
        this.#logger.warn({ err: errorMessage(err), topic: this.#topic }, 'cannot publish templates; other replicas wait for the exporter to refresh them');
      })
      .finally(() => this.#inFlight--);
    return { published: records.length, skipped: due.length - records.length };
  }

  /** Forgets what was published for an exporter whose session ended, so that memory follows live exporters. */
  forget(exporter: Endpoint): void {
    this.#published.delete(exporterId(exporter));
  }
}

const exporterId = (e: Endpoint) => `${e.address}|${e.port}`;

/** Reads the whole topic and hands every other replica's template, not older than the lifetime, to `install`. */
export async function subscribeTemplates(opts: {
  log: MessageLog;
  topic: string;
  replica: string;
  templateTtlMs: number;
  logger: Logger;
  now?: () => number;
  install: (shared: SharedTemplate) => void;
  /** The consumer stopped for good (ConsumerHandlers.onFailure). */
  onFailure?: (err: unknown) => void;
}): Promise<Consumer> {
  const now = opts.now ?? Date.now;
  const consumer = opts.log.consumer({ groupId: `flowagg-ingest-templates-${opts.replica}`, startFrom: 'earliest', isolation: 'read_uncommitted' });
  await consumer.subscribe([opts.topic]);
  await consumer.run({
    eachBatch: async (batch) => {
      for (const r of batch.records) {
        let shared: SharedTemplate | undefined;
        try {
          shared = decodeTemplateRecord(r);
        } catch (err) {
          opts.logger.warn({ err: errorMessage(err), offset: r.offset, partition: r.partition }, 'skipping unreadable ipfix.templates record');
          continue;
        }
        if (shared === undefined || shared.replica === opts.replica || now() - shared.timestamp > opts.templateTtlMs) continue;
        opts.install(shared);
      }
    },
    ...(opts.onFailure && { onFailure: opts.onFailure }),
  });
  return consumer;
}
