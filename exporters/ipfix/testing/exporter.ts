// Helpers for the IPFIX exporter's tests: a configured exporter, batches of numbered records, and what
// a collector received, decoded with flowagg's own decoder session by session. Production code never
// imports this file.
import { decodeMessage } from '../../../lib/ipfix/decode-message.js';
import { TemplateStore } from '../../../lib/ipfix/template-store.js';
import type { DataRecord, MessageHeader, Template } from '../../../lib/ipfix/types.js';
import type { FlowRecord } from '../../../schemas/flow-record.js';
import type { CollectedMessage } from '../../../integration-tests/harness/collector.js';
import type { ExportBatch } from '../../types.js';
import { exportedRecords, testBatch } from '../../testing/records.js';
import { flowCollectorSection } from '../config.js';
import { IpfixExporter, type IpfixExporterConfig, type IpfixExporterDeps } from '../index.js';

export function ipfixExporter(flowCollector: Record<string, unknown>, rest: Partial<Omit<IpfixExporterConfig, 'flowCollector'>> = {}, deps: IpfixExporterDeps = {}): IpfixExporter {
  const config = { flowCollector: flowCollectorSection.parse({ enable: true, connectTimeout: 2000, ...flowCollector }), mode: 'Aggregate' as const, clusterID: '', ...rest };
  return new IpfixExporter(config, deps);
}

let nextBatch = 0;

export function batchOf(records: readonly FlowRecord[], partition = 0): ExportBatch {
  const first = nextBatch;
  nextBatch += records.length;
  return testBatch(exportedRecords(records, first), partition);
}

export interface DecodedExport {
  readonly headers: (MessageHeader & { session: number; records: number })[];
  readonly templates: Template[];
  /** Data records with their values by element name. */
  readonly records: (Record<string, unknown> & { templateId: number; session: number })[];
}

/**
 * Decodes what a collector received, with one template store per transport session (UDP: one for all),
 * incrementally: update() decodes only the messages that arrived since the last call.
 */
export class CollectedDecoder implements DecodedExport {
  readonly headers: DecodedExport['headers'] = [];
  readonly templates: Template[] = [];
  readonly records: DecodedExport['records'] = [];
  readonly #stores = new Map<number, TemplateStore>();
  #done = 0;

  constructor(
    private readonly messages: readonly CollectedMessage[],
    private readonly transport: 'tcp' | 'udp' = 'tcp',
  ) {}

  /** Decodes the new messages; returns the number of data records decoded so far. */
  update(): number {
    for (; this.#done < this.messages.length; this.#done++) {
      const m = this.messages[this.#done]!;
      let store = this.#stores.get(m.session);
      if (store === undefined) this.#stores.set(m.session, (store = new TemplateStore({ transport: this.transport })));
      const decoded = decodeMessage(m.bytes, store);
      if (decoded.errors.length > 0) throw decoded.errors[0];
      this.headers.push({ ...decoded.header, session: m.session, records: decoded.records.length });
      this.templates.push(...decoded.templates);
      for (const r of decoded.records) this.records.push({ ...byName(r), templateId: r.template.id, session: m.session });
    }
    return this.records.length;
  }
}

export function decodeCollected(messages: readonly CollectedMessage[], transport: 'tcp' | 'udp' = 'tcp'): DecodedExport {
  const d = new CollectedDecoder(messages, transport);
  d.update();
  return d;
}

function byName(r: DataRecord): Record<string, unknown> {
  return Object.fromEntries(r.template.fields.map((f, i) => [f.ie.name, r.values[i]]));
}
