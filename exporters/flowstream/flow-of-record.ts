// A processed FlowRecord back into Antrea's `Flow`, as the FlowStreamService sends it: the collector's mapping
// table (schemas/antrea-flow-mapping.ts) read the other way, plus what the processor adds: the aggregation
// counters, end times and throughputs (Aggregate mode), flowDirection (Proxy mode) and the Pod labels.
// Zero cluster, Service and SNAT addresses become empty bytes, as Antrea's IPFIX collector leaves them.
import { parseIpv4Into, parseIpv6Into } from '../../lib/ipfix/text.js';
import type { FlowRecord } from '../../schemas/flow-record.js';
import { LEAVES } from '../../schemas/antrea-flow-fields.js';
import { FLOW_MAPPING } from '../../schemas/antrea-flow-mapping.js';
import type { FlowObject } from './filter.js';

/** Aggregation fields: FlowRecord field → path under `aggregation`. */
const AGGREGATION: readonly (readonly [string, string])[] = [
  ...(['', 'reverse'] as const).flatMap((dir) =>
    (['Source', 'Destination'] as const).flatMap((side) =>
      (['packetTotal', 'packetDelta', 'octetTotal', 'octetDelta'] as const).map((c) => {
        const field = dir === '' ? `${c}CountFrom${side}Node` : `reverse${c[0]!.toUpperCase()}${c.slice(1)}CountFrom${side}Node`;
        const snake = c.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`);
        return [field, `${dir === '' ? '' : 'reverse_'}stats_from_${side.toLowerCase()}.${snake}_count`] as const;
      }),
    ),
  ),
  ['throughput', 'throughput'], ['reverseThroughput', 'reverse_throughput'],
  ['throughputFromSourceNode', 'throughput_from_source'], ['throughputFromDestinationNode', 'throughput_from_destination'],
  ['reverseThroughputFromSourceNode', 'reverse_throughput_from_source'], ['reverseThroughputFromDestinationNode', 'reverse_throughput_from_destination'],
];

/** Addresses whose zero value is "none" (empty bytes) in a Flow. */
const ZERO_IS_EMPTY = new Set(['destinationClusterIp', 'destinationServiceIp', 'proxySnatIp']);

function set(target: FlowObject, path: string, value: unknown): void {
  const parts = path.split('.');
  let o = target as Record<string, unknown>;
  for (const p of parts.slice(0, -1)) o = (o[p] ??= {}) as Record<string, unknown>;
  o[parts.at(-1)!] = value;
}

const isZero = (b: Uint8Array) => b.every((x) => x === 0);

function addressBytes(text: string): Buffer | undefined {
  const out = Buffer.alloc(text.includes(':') ? 16 : 4);
  return (text.includes(':') ? parseIpv6Into(text, out, 0) : parseIpv4Into(text, out, 0)) ? out : undefined;
}

function uuidText(b: Buffer): string {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function labels(json: unknown): { labels: Record<string, string> } | undefined {
  if (typeof json !== 'string' || json === '') return undefined;
  try {
    const parsed = JSON.parse(json) as unknown;
    return typeof parsed === 'object' && parsed !== null ? { labels: Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)])) } : undefined;
  } catch {
    return undefined;
  }
}

const timestamp = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms - Math.floor(ms / 1000) * 1000) * 1_000_000 });

export function flowOfRecord(r: FlowRecord): FlowObject {
  const flow: FlowObject = {
    ipfix: { export_time: { seconds: Math.floor(r.exportTime / 1000) }, sequence_number: r.sequenceNumber >>> 0, observation_domain_id: r.observationDomainId >>> 0, exporter_ip: r.exporterAddress },
  };
  if (r.sourceIPv4Address !== null || r.destinationIPv4Address !== null) set(flow, 'ip.version', 4);
  else if (r.sourceIPv6Address !== null || r.destinationIPv6Address !== null) set(flow, 'ip.version', 6);
  for (const { field, leaf, conversion } of FLOW_MAPPING) {
    const v = r[field];
    if (v === null || v === undefined) continue;
    const path = LEAVES[leaf];
    switch (conversion.kind) {
      case 'seconds':
        set(flow, path.replace(/\.seconds$/, ''), timestamp(v as number));
        break;
      case 'address':
        if (!(ZERO_IS_EMPTY.has(leaf) && isZero(v as Buffer))) set(flow, path, v);
        break;
      case 'addressText': {
        const b = addressBytes(v as string);
        if (b !== undefined) set(flow, path, b);
        break;
      }
      case 'uuid':
        set(flow, path, uuidText(v as Buffer));
        break;
      case 'string':
        // transport.TCP is a oneof: set only for a state.
        if (v !== '' || leaf !== 'tcpState') set(flow, path, v);
        break;
      default:
        set(flow, path, v);
    }
  }
  for (const [field, path] of AGGREGATION) if (r[field] !== null && r[field] !== undefined) set(flow, `aggregation.${path}`, r[field]);
  if (typeof r.flowEndSecondsFromSourceNode === 'number') set(flow, 'aggregation.end_ts_from_source', { seconds: r.flowEndSecondsFromSourceNode });
  if (typeof r.flowEndSecondsFromDestinationNode === 'number') set(flow, 'aggregation.end_ts_from_destination', { seconds: r.flowEndSecondsFromDestinationNode });
  if (typeof r.flowDirection === 'number') flow.flow_direction = r.flowDirection;
  const source = labels(r.sourcePodLabels);
  const destination = labels(r.destinationPodLabels);
  if (source) set(flow, 'k8s.source_pod_labels', source);
  if (destination) set(flow, 'k8s.destination_pod_labels', destination);
  return flow;
}
