// Builders and fakes for the processor's tests and benchmark: FlowRecords from a few readable values,
// an in-memory MetadataSource, and the reference decoding of what the processor wrote. Production code
// never imports this file.
import { untilHolds } from '../../lib/testing/until.js';
import { flowKeyOfRecord } from '../../schemas/flow-key.js';
import { parseIpv4Into, parseIpv6Into } from '../../lib/ipfix/text.js';
import type { MessageLog } from '../../lib/log/types.js';
import type { MetadataSource, NodeInfo, PodInfo, ServiceInfo } from '../../lib/k8s/metadata.js';
import { labelsJson } from '../../lib/k8s/store/events.js';
import { FLOW_RECORD_FIELDS, type FlowRecord, flowRecordReader, flowRecordWriter } from '../../schemas/flow-record.js';
import { FlowRecordScanner, ScannedRecord } from '../../schemas/flow-record-scanner.js';
import type { AggregatorSettings } from '../aggregate/aggregator.js';

/**
 * Antrea's defaults (60 s active, 90 s inactive, 1 s export delay, 2 retries), no allowed lateness: the
 * aggregation then keeps Antrea's timeline to the second.
 */
export function aggregatorSettings(overrides: Partial<AggregatorSettings> = {}): AggregatorSettings {
  return {
    activeMs: 60_000, inactiveMs: 90_000, exportDelayMs: 1000, correlationRetries: 2, uncorrelated: 'export', maxFlows: 1_000_000, allowedLatenessMs: 0,
    ...overrides,
    clock: { idleMs: 15_000, maxAheadMs: 60_000, maxSources: 10_000, ...overrides.clock },
  };
}

/** FlowRecord fields by name; addresses as text, times in seconds (as Antrea agents send them). */
export interface RecordSpec {
  readonly src?: string;
  readonly dst?: string;
  readonly sport?: number;
  readonly dport?: number;
  readonly proto?: number;
  /** flowStartSeconds / flowEndSeconds. */
  readonly start?: number;
  readonly end?: number;
  /** IPFIX message export time, seconds; the event time. Default: `end`. */
  readonly exportTime?: number;
  readonly exporter?: string;
  readonly observationDomainId?: number;
  /** Any other FlowRecord field by name: numbers, strings, addresses as text for address fields. */
  readonly [field: string]: unknown;
}

const SPEC_KEYS = new Set(['src', 'dst', 'sport', 'dport', 'proto', 'start', 'end', 'exportTime', 'exporter', 'observationDomainId']);
const EMPTY: Record<string, unknown> = Object.fromEntries(FLOW_RECORD_FIELDS.map((f) => [f.name, null]));

function address(text: string): Buffer {
  const b = Buffer.alloc(text.includes(':') ? 16 : 4);
  if (!(b.length === 16 ? parseIpv6Into(text, b, 0) : parseIpv4Into(text, b, 0))) throw new Error(`not an address: ${text}`);
  return b;
}

const FIXED = new Map(FLOW_RECORD_FIELDS.flatMap((f) => (f.kind === 'element' && f.encoding === 'fixed' ? [[f.name, f.ie.type] as const] : [])));

/** The FlowRecord object of a spec: an Antrea agent record by default (TCP, seconds). */
export function flowRecord(spec: RecordSpec): FlowRecord {
  const v6 = (spec.src ?? spec.dst ?? '').includes(':');
  const out: Record<string, unknown> = {
    ...EMPTY,
    exporterAddress: spec.exporter ?? '192.0.2.1', exporterPort: 4739, transport: 'tcp', observationDomainId: spec.observationDomainId ?? 1,
    exportTime: (spec.exportTime ?? spec.end ?? 0) * 1000, sequenceNumber: 0, templateId: 256, receiveTime: (spec.exportTime ?? spec.end ?? 0) * 1000,
    flowStartMilliseconds: spec.start === undefined ? null : spec.start * 1000, flowStartSource: spec.start === undefined ? null : 'seconds',
    flowEndMilliseconds: spec.end === undefined ? null : spec.end * 1000, flowEndSource: spec.end === undefined ? null : 'seconds',
    [v6 ? 'sourceIPv6Address' : 'sourceIPv4Address']: spec.src === undefined ? null : address(spec.src),
    [v6 ? 'destinationIPv6Address' : 'destinationIPv4Address']: spec.dst === undefined ? null : address(spec.dst),
    sourceTransportPort: spec.sport ?? null, destinationTransportPort: spec.dport ?? null, protocolIdentifier: spec.proto ?? 6,
    extras: [],
  };
  for (const [k, v] of Object.entries(spec)) {
    if (SPEC_KEYS.has(k)) continue;
    if (!(k in EMPTY)) throw new Error(`no FlowRecord field ${k}`);
    out[k] = typeof v === 'string' && FIXED.has(k) && FIXED.get(k) !== 'octetArray' ? address(v) : v;
  }
  return out as FlowRecord;
}

const writer = flowRecordWriter();
const scanner = new FlowRecordScanner();

/** The framed Avro value of a spec, as ingest writes it to flows.raw. */
export function flowRecordValue(spec: RecordSpec): Buffer {
  return writer.encode(flowRecord(spec));
}

/** A spec scanned, as the processor reads it (a fresh ScannedRecord each time). */
export function scanned(spec: RecordSpec | Buffer): ScannedRecord {
  const r = new ScannedRecord();
  scanner.scan(Buffer.isBuffer(spec) ? spec : flowRecordValue(spec), r);
  return r;
}

const reader = flowRecordReader();

/** What the processor wrote, decoded by the reference reader. */
export function decodeOutput(value: Buffer): FlowRecord {
  return reader.decode(value);
}

export interface InventoryPod extends Omit<PodInfo, 'labelsJson'> {
  readonly ip: string;
}

/** A MetadataSource over fixed lists, for unit tests (lib/k8s has the real ones). */
export function staticMetadata(pods: readonly InventoryPod[], nodes: readonly NodeInfo[] = [], services: readonly ServiceInfo[] = [], clusterUuid?: string): MetadataSource & { lookups: number } {
  const infos = pods.map((p) => ({ ...p, labelsJson: labelsJson(p.labels) }));
  const source = {
    lookups: 0,
    podByIp(ip: string) {
      source.lookups++;
      return infos.find((p) => p.ip === ip);
    },
    podByIpv4(address: number) {
      return source.podByIp([address >>> 24, (address >>> 16) & 255, (address >>> 8) & 255, address & 255].join('.'));
    },
    readiness: () => ({ ready: true }),
    nodeByName: (name: string) => nodes.find((n) => n.name === name),
    serviceByName: (namespace: string, name: string) => services.find((s) => s.namespace === namespace && s.name === name),
    clusterUuid: () => clusterUuid,
    ready: async () => {},
    close: async () => {},
  };
  return source;
}

/** Writes specs to flows.raw keyed by their flow key, as ingest does (the key picks the partition). */
export async function produceSpecs(log: MessageLog, topic: string, specs: readonly RecordSpec[]): Promise<void> {
  const records = specs.map((spec) => {
    const record = flowRecord(spec);
    return { key: flowKeyOfRecord(record), value: writer.encode(record) };
  });
  for (let i = 0; i < records.length; i += 5000) await log.producer().send(topic, records.slice(i, i + 5000));
}

/** Resolves once `groupId` committed every partition of `topic` up to its end (waits for the event, bounded). */
export async function waitCaughtUp(log: MessageLog, groupId: string, topic: string, timeoutMs = 120_000): Promise<void> {
  const behind = async () => {
    const ends = await log.admin().fetchTopicOffsets(topic);
    const lag = await log.admin().fetchGroupLag(groupId);
    return ends.filter((e) => e.high > 0 && (lag.find((l) => l.topic === topic && l.partition === e.partition)?.committed ?? 0) < e.high).map((e) => e.partition);
  };
  await untilHolds(`group ${groupId} to commit every partition of ${topic} to its end (the value: partitions behind)`, behind, (partitions) => partitions.length === 0, { timeoutMs, intervalMs: 20 });
}
