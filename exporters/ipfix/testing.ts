// Helpers for the IPFIX exporter's tests: a configured exporter, batches of numbered records, and what
// a collector received, decoded with flowagg's own decoder session by session. Production code never
// imports this file.
import { decodeMessage } from '../../lib/ipfix/decode-message.js';
import { TemplateStore } from '../../lib/ipfix/template-store.js';
import { type DataRecord, type MessageHeader, type Template } from '../../lib/ipfix/types.js';
import { type FlowRecord } from '../../schemas/flow-record.js';
import { type CollectedMessage } from '../../integration-tests/harness/collector.js';
import { type ExportBatch } from '../types.js';
import { flowCollectorSection } from './config.js';
import { IpfixExporter, type IpfixExporterConfig, type IpfixExporterDeps } from './index.js';

export function ipfixExporter(flowCollector: Record<string, unknown>, rest: Partial<Omit<IpfixExporterConfig, 'flowCollector'>> = {}, deps: IpfixExporterDeps = {}): IpfixExporter {
  const config = { flowCollector: flowCollectorSection.parse({ enable: true, connectTimeout: 2000, ...flowCollector }), mode: 'Aggregate' as const, clusterID: '', ...rest };
  return new IpfixExporter(config, deps);
}

let nextBatch = 0;

export function batchOf(records: readonly FlowRecord[], partition = 0): ExportBatch {
  const first = nextBatch;
  nextBatch += records.length;
  return { id: `flows.processed/${partition}/${first}-${nextBatch - 1}`, topic: 'flows.processed', partition, firstOffset: first, lastOffset: nextBatch - 1, records: records.map((record, i) => ({ offset: first + i, record })) };
}

export interface DecodedExport {
  readonly headers: (MessageHeader & { session: number; records: number })[];
  readonly templates: Template[];
  /** Data records with their values by element name. */
  readonly records: (Record<string, unknown> & { templateId: number; session: number })[];
}

/** Decodes collected messages with one template store per transport session (UDP: one for all). */
export function decodeCollected(messages: readonly CollectedMessage[], transport: 'tcp' | 'udp' = 'tcp'): DecodedExport {
  const stores = new Map<number, TemplateStore>();
  const out: DecodedExport = { headers: [], templates: [], records: [] };
  for (const m of messages) {
    let store = stores.get(m.session);
    if (store === undefined) stores.set(m.session, (store = new TemplateStore({ transport })));
    const decoded = decodeMessage(m.bytes, store);
    if (decoded.errors.length > 0) throw decoded.errors[0];
    out.headers.push({ ...decoded.header, session: m.session, records: decoded.records.length });
    out.templates.push(...decoded.templates);
    out.records.push(...decoded.records.map((r: DataRecord) => ({ ...byName(r), templateId: r.template.id, session: m.session })));
  }
  return out;
}

function byName(r: DataRecord): Record<string, unknown> {
  return Object.fromEntries(r.template.fields.map((f, i) => [f.ie.name, r.values[i]]));
}
