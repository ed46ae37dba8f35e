// The path view: every observation point that reported a flow's 5-tuple in a time range, each with its
// counters. It reads flows.raw, where every exporter's records are kept as they came (flows.processed
// holds one record per flow), and only the one partition the flow key maps to: ingest keys each record
// with the flow key and partitions by it, so that both halves of a flow (and any other exporter's record
// of the same tuple) land there. A flow from outside through a NodePort is keyed by its tuple after SNAT
// (`snat`, the proxy SNAT address and port the aggregated record carries), as ingest keys its halves.
import { isIP } from 'node:net';
import { parseIpv4Into, parseIpv6Into } from '../../lib/ipfix/text.js';
import { partitionForKey } from '../../lib/log/partitioner.js';
import { FLOW_TYPE_FROM_EXTERNAL, FlowKeyInput, flowKeyBytes } from '../../schemas/flow-key.js';
import type { FlowRecord } from '../../schemas/flow-record.js';
import type { ObservationPoint, PathResponse } from './api-types.js';
import { recordCounters } from './flow-facts.js';
import { type LogAccess, scanLog } from './log-scan.js';
import { intParam, QueryError, type TimeRange } from './query-params.js';

export interface PathDeps extends LogAccess {
  /** flows.raw */
  readonly topic: string;
  readonly decode: (value: Buffer) => FlowRecord;
  readonly budget: number;
}

/** The flow key of a 5-tuple, as ingest computes it (schemas/flow-key.ts), from the query's parameters. */
export function tupleKey(url: URL): { key: Buffer; text: string } {
  const param = (name: string) => url.searchParams.get(name) ?? '';
  const family = isIP(param('src'));
  if (family === 0) throw new QueryError(`src: "${param('src')}" is not an IPv4 or IPv6 address`);
  // Source, destination and SNAT addresses side by side, as the transcoder finds them in a record.
  const bytes = new Uint8Array(16 * 3);
  const place = (name: string, text: string, at: number): number => {
    if (!(family === 4 ? parseIpv4Into(text, bytes, at) : parseIpv6Into(text, bytes, at))) throw new QueryError(`${name}: "${text}" is not an IPv${family} address like src`);
    return at;
  };
  const k = new FlowKeyInput().reset(bytes);
  const v4 = family === 4;
  k[v4 ? 'sourceIPv4' : 'sourceIPv6'] = place('src', param('src'), 0);
  k[v4 ? 'destinationIPv4' : 'destinationIPv6'] = place('dst', param('dst'), 16);
  k.protocol = intParam(url, 'proto', 0, 255, 6);
  k.sourcePort = intParam(url, 'sport', 0, 65535, 0);
  k.destinationPort = intParam(url, 'dport', 0, 65535, 0);
  let text = `${param('src')}:${k.sourcePort} → ${param('dst')}:${k.destinationPort} (${k.protocol})`;
  const snat = param('snat');
  if (snat !== '') {
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(snat);
    if (m === null) throw new QueryError(`snat: "${snat}" is not ADDRESS:PORT`);
    k[v4 ? 'proxySnatIPv4' : 'proxySnatIPv6'] = place('snat', m[1]!, 32);
    k.proxySnatPort = Number(m[2]);
    k.flowType = FLOW_TYPE_FROM_EXTERNAL;
    text += `, through ${snat}`;
  }
  return { key: flowKeyBytes(k), text };
}

const named = (v: unknown) => typeof v === 'string' && v !== '';

/** Which side of an Antrea flow a record reports (reference §5.4), and its Node. */
function sideOf(r: FlowRecord): Pick<ObservationPoint, 'side' | 'node'> {
  const source = named(r.sourcePodName);
  const destination = named(r.destinationPodName);
  if (source && destination) return { side: 'both', node: String(r.sourceNodeName ?? '') };
  if (source) return { side: 'source', node: String(r.sourceNodeName ?? '') };
  if (destination) return { side: 'destination', node: String(r.destinationNodeName ?? '') };
  // The ingress Node of a flow from outside names neither Pod; it carries the SNAT it applied.
  if (r.flowType === FLOW_TYPE_FROM_EXTERNAL && (r.proxySnatPort ?? 0) > 0) return { side: 'source', node: '' };
  return { side: 'other', node: '' };
}

export async function pathView(d: PathDeps, url: URL, range: TimeRange): Promise<Omit<PathResponse, 'range'>> {
  const { key, text } = tupleKey(url);
  const partitions = (await d.admin.fetchTopicOffsets(d.topic)).length;
  if (partitions === 0) return { tuple: text, scan: { scanned: 0, complete: true, coveredFrom: range.from }, points: [] };
  const points = new Map<string, ObservationPoint & { records: number; bytes: number; packets: number; first: number; last: number }>();
  const scan = await scanLog(d, { topic: d.topic, partitions: [partitionForKey(key, partitions)], from: range.from, to: range.to, budget: d.budget }, (record) => {
    if (record.value === null || record.key === null || !record.key.equals(key)) return;
    const r = d.decode(record.value);
    const time = r.flowEndMilliseconds ?? record.timestamp;
    if (time < range.from || time > range.to) return;
    const id = `${r.exporterAddress}\t${r.observationDomainId}`;
    let p = points.get(id);
    if (p === undefined) points.set(id, (p = { exporter: r.exporterAddress, observationDomainId: r.observationDomainId, ...sideOf(r), records: 0, bytes: 0, packets: 0, first: time, last: time }));
    const c = recordCounters(r);
    p.records++;
    p.bytes += c.bytes;
    p.packets += c.packets;
    p.first = Math.min(p.first, time);
    p.last = Math.max(p.last, time);
  });
  return { tuple: text, scan, points: [...points.values()].sort((a, b) => a.first - b.first || a.exporter.localeCompare(b.exporter)) };
}
