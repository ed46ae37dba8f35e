// Builders for the exporters' tests and benchmarks: FlowRecords as the processor writes them to
// flows.processed (aggregate mode), deterministic from a seed, and writing them to a log. Production code
// never imports this file.
import { FLOW_RECORD_FIELDS, type FlowRecord, flowRecordWriter } from '../schemas/flow-record.js';
import { type MessageLog } from '../lib/log/types.js';
import { type ExportBatch } from './types.js';

const EMPTY: Readonly<Record<string, unknown>> = Object.fromEntries(
  FLOW_RECORD_FIELDS.map((f) => [f.name, f.kind === 'extras' ? [] : f.kind === 'source' ? (f.name === 'exporterAddress' ? '' : f.name === 'transport' ? 'unknown' : 0) : null]),
);

const ip4 = (a: number, b: number, c: number, d: number) => Buffer.from([a, b, c, d]);

/** A complete FlowRecord: every field of the schema, the given ones set. */
export function flowRecord(values: Record<string, unknown>): FlowRecord {
  return { ...EMPTY, ...values } as FlowRecord;
}

/**
 * The i-th record of a deterministic aggregated workload: inter-Node TCP flows between Pods, with Service,
 * policies, labels and every counter set, values growing with i (so that sums over many records check
 * every column). Every tenth record is IPv6, every seventh denied at ingress.
 */
export function aggregatedRecord(i: number): FlowRecord {
  const v6 = i % 10 === 9;
  const start = 1_700_000_000_000 + i * 1000;
  const src = ip4(10, 10, (i >> 8) & 0xff, i & 0xff);
  const dst = ip4(10, 20, (i >> 8) & 0xff, i & 0xff);
  const six = (b: Buffer) => Buffer.concat([Buffer.from([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), b]);
  const denied = i % 7 === 3;
  return flowRecord({
    exporterAddress: '192.0.2.1',
    transport: 'tcp',
    observationDomainId: 1,
    exportTime: start + 5000,
    flowStartMilliseconds: start,
    flowEndMilliseconds: start + 4000,
    flowStartSource: 'seconds',
    flowEndSource: 'seconds',
    sourceIPv4Address: v6 ? null : src,
    destinationIPv4Address: v6 ? null : dst,
    sourceIPv6Address: v6 ? six(src) : null,
    destinationIPv6Address: v6 ? six(dst) : null,
    sourceTransportPort: 30000 + (i % 30000),
    destinationTransportPort: 5201,
    protocolIdentifier: i % 5 === 4 ? 17 : 6,
    flowEndReason: 2,
    packetTotalCount: 100 + i,
    octetTotalCount: 100_000 + 3 * i,
    packetDeltaCount: 10 + (i % 97),
    octetDeltaCount: 10_000 + (i % 1013),
    reversePacketTotalCount: 50 + i,
    reverseOctetTotalCount: 50_000 + 7 * i,
    reversePacketDeltaCount: 5 + (i % 89),
    reverseOctetDeltaCount: 5000 + (i % 997),
    sourcePodName: `client-${i % 50}`,
    sourcePodNamespace: 'perf',
    sourceNodeName: `node-${i % 6}`,
    destinationPodName: `server-${i % 20}`,
    destinationPodNamespace: 'perf',
    destinationNodeName: `node-${(i + 1) % 6}`,
    destinationClusterIPv4: v6 ? null : ip4(10, 96, 0, 10),
    destinationClusterIPv6: v6 ? six(ip4(0, 0, 0, 10)) : null,
    destinationServiceIPv4: v6 ? null : ip4(10, 96, 0, 10),
    destinationServicePort: 5201,
    destinationServicePortName: 'perf/iperf:tcp',
    ingressNetworkPolicyName: denied ? 'deny-all' : 'allow-iperf',
    ingressNetworkPolicyNamespace: 'perf',
    ingressNetworkPolicyRuleName: denied ? 'rule-deny' : 'rule-1',
    ingressNetworkPolicyRuleAction: denied ? 3 : 1,
    ingressNetworkPolicyType: 2,
    egressNetworkPolicyName: '',
    egressNetworkPolicyNamespace: '',
    egressNetworkPolicyRuleName: '',
    egressNetworkPolicyRuleAction: 0,
    egressNetworkPolicyType: 0,
    tcpState: i % 5 === 4 ? '' : 'ESTABLISHED',
    flowType: 2,
    sourcePodLabels: `{"app":"client","i":"${i % 50}"}`,
    destinationPodLabels: '{"app":"server"}',
    throughput: 200_000 + i,
    reverseThroughput: 100_000 + i,
    throughputFromSourceNode: 200_001 + i,
    throughputFromDestinationNode: 200_002 + i,
    reverseThroughputFromSourceNode: 100_001 + i,
    reverseThroughputFromDestinationNode: 100_002 + i,
    packetTotalCountFromSourceNode: 100 + i,
    packetTotalCountFromDestinationNode: 100 + i,
    flowEndSecondsFromSourceNode: Math.floor(start / 1000) + 4,
    flowEndSecondsFromDestinationNode: Math.floor(start / 1000) + 3,
    egressName: i % 11 === 0 ? 'egress-a' : '',
    egressIP: i % 11 === 0 ? '172.18.0.1' : '',
    egressNodeName: i % 11 === 0 ? 'node-0' : '',
  });
}

/** The flow key ingest would have computed; any stable key works for the exporters, which ignore it. */
function keyOf(i: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(i >>> 0);
  return b;
}

/** Writes aggregatedRecord(from) .. aggregatedRecord(to - 1) to `topic`, in sends of `chunk` records. */
export async function writeAggregated(log: MessageLog, topic: string, from: number, to: number, chunk = 5000): Promise<void> {
  const writer = flowRecordWriter();
  const producer = log.producer();
  try {
    for (let i = from; i < to; i += chunk) {
      const records = [];
      for (let j = i; j < Math.min(to, i + chunk); j++) records.push({ key: keyOf(j), value: writer.encode(aggregatedRecord(j)) });
      await producer.send(topic, records);
    }
  } finally {
    await producer.close();
  }
}

/** A batch as the runner cuts it: `count` consecutive records of one partition from `firstOffset`. */
export function batchOf(partition: number, firstOffset: number, count: number, record: (i: number) => FlowRecord = aggregatedRecord, topic = 'flows.processed'): ExportBatch {
  const records = Array.from({ length: count }, (_, i) => ({ offset: firstOffset + i, record: record(firstOffset + i) }));
  const lastOffset = firstOffset + count - 1;
  return { id: `${topic}/${partition}/${firstOffset}-${lastOffset}`, topic, partition, firstOffset, lastOffset, records };
}
