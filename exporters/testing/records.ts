// Builders and fakes for the exporters' tests: FlowRecords as the processor writes them to
// flows.processed, batches as the runner cuts them, and a destination that fails on command. Production
// code never imports this file.
import { createServer } from 'node:net';
import type { MessageLog } from '../../lib/log/types.js';
import { FLOW_RECORD_TYPE, type FlowRecord, flowRecordWriter } from '../../schemas/flow-record.js';
import { notDelivered } from '../errors.js';
import { FlowaggError } from '../../lib/errors.js';
import { until } from '../../lib/testing/until.js';
import { ScannedRecord } from '../../schemas/flow-record-scanner.js';
import { FlowValues, scanEach } from '../flow-values.js';
import type { BatchPolicy, ExportBatch, ExportedRecord, Exporter, ExporterKind } from '../types.js';

const DEFAULTS: Record<string, unknown> = Object.fromEntries(
  (FLOW_RECORD_TYPE as unknown as { fields: { name: string; defaultValue(): unknown }[] }).fields.map((f) => [f.name, f.defaultValue()]),
);

const ip4 = (text: string) => Buffer.from(text.split('.').map(Number));

/** A FlowRecord with every field at its default, then `fields`. */
export function flowRecord(fields: Partial<Record<keyof FlowRecord & string, unknown>> = {}): FlowRecord {
  return { ...DEFAULTS, ...fields } as FlowRecord;
}

/**
 * The i-th record of a test stream: an aggregated inter-Node TCP flow whose source port and counters
 * identify it (sourceTransportPort = 10000 + i % 50000, octetDeltaCount = i), so a test can tell every
 * record at the destination apart.
 */
export function numberedRecord(i: number, fields: Partial<Record<string, unknown>> = {}): FlowRecord {
  const start = 1_700_000_000_000 + i * 1000;
  return flowRecord({
    flowStartMilliseconds: start, flowEndMilliseconds: start + 5000, flowEndReason: 2,
    sourceIPv4Address: ip4(`10.1.${(i >> 8) & 255}.${i & 255}`), destinationIPv4Address: ip4('10.2.0.1'),
    sourceTransportPort: 10000 + (i % 50000), destinationTransportPort: 5201, protocolIdentifier: 6,
    packetTotalCount: 2 * i, octetTotalCount: 200 * i, packetDeltaCount: i % 1000, octetDeltaCount: i,
    reversePacketTotalCount: i, reverseOctetTotalCount: 100 * i, reversePacketDeltaCount: 1, reverseOctetDeltaCount: 64,
    sourcePodName: `client-${i % 7}`, sourcePodNamespace: 'perf', sourceNodeName: 'node-a',
    destinationPodName: 'server', destinationPodNamespace: 'perf', destinationNodeName: 'node-b',
    destinationServicePort: 5201, destinationServicePortName: 'perf/server:5201', tcpState: 'ESTABLISHED', flowType: 2,
    ...fields,
  });
}

/**
 * numberedRecord with every column of the Antrea/Theia row set, as aggregate mode fills it: throughputs,
 * per-Node flow ends, Service, policies, labels, egress; every tenth record IPv6 (fd00::…), every seventh
 * denied at ingress, every fifth UDP. For the row destinations, whose sums check every column.
 */
export function aggregatedRecord(i: number): FlowRecord {
  const base = numberedRecord(i);
  const v6 = i % 10 === 9;
  const six = (v4: Buffer) => Buffer.concat([Buffer.from([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), v4]);
  const denied = i % 7 === 3;
  const udp = i % 5 === 4;
  const endSeconds = Math.floor((base.flowEndMilliseconds ?? 0) / 1000);
  return numberedRecord(i, {
    ...(v6 && { sourceIPv4Address: null, destinationIPv4Address: null, sourceIPv6Address: six(base.sourceIPv4Address!), destinationIPv6Address: six(base.destinationIPv4Address!) }),
    protocolIdentifier: udp ? 17 : 6,
    tcpState: udp ? '' : 'ESTABLISHED',
    destinationClusterIPv4: v6 ? null : ip4('10.96.0.10'),
    destinationClusterIPv6: v6 ? six(ip4('0.0.0.10')) : null,
    destinationServiceIPv4: v6 ? null : ip4('10.96.0.10'),
    ingressNetworkPolicyName: denied ? 'deny-all' : 'allow-iperf',
    ingressNetworkPolicyNamespace: 'perf',
    ingressNetworkPolicyRuleName: denied ? 'rule-deny' : 'rule-1',
    ingressNetworkPolicyRuleAction: denied ? 3 : 1,
    ingressNetworkPolicyType: 2,
    egressNetworkPolicyRuleAction: 0,
    sourcePodLabels: `{"app":"client","i":"${i % 7}"}`,
    destinationPodLabels: '{"app":"server"}',
    throughput: 200_000 + i,
    reverseThroughput: 100_000 + i,
    throughputFromSourceNode: 200_001 + i,
    throughputFromDestinationNode: 200_002 + i,
    reverseThroughputFromSourceNode: 100_001 + i,
    reverseThroughputFromDestinationNode: 100_002 + i,
    flowEndSecondsFromSourceNode: endSeconds,
    flowEndSecondsFromDestinationNode: endSeconds - 1,
    egressName: i % 11 === 0 ? 'egress-a' : '',
    egressIP: i % 11 === 0 ? '172.18.0.1' : '',
    egressNodeName: i % 11 === 0 ? 'node-a' : '',
  });
}

/** The reader of single-object framed values that the runner uses by default. */
export const testValues = new FlowValues();

const testWriter = flowRecordWriter();

/** Records as the runner hands them over: their values framed as in flows.processed, at consecutive offsets from `firstOffset`. */
export function exportedRecords(records: readonly FlowRecord[], firstOffset: number): ExportedRecord[] {
  return records.map((r, i) => ({ offset: firstOffset + i, value: testWriter.encode(r) }));
}

/** A batch as the runner cuts it, of `records` (consecutive, at least one); a value that does not read fails the delivery. */
export function testBatch(records: readonly ExportedRecord[], partition = 0, topic = 'flows.processed'): ExportBatch {
  const firstOffset = records[0]!.offset;
  const lastOffset = records[records.length - 1]!.offset;
  const unreadable = (record: ExportedRecord, err: unknown) => {
    throw new Error(`a test batch's record at offset ${record.offset} is not a FlowRecord`, { cause: err });
  };
  return { id: `${topic}/${partition}/${firstOffset}-${lastOffset}`, topic, partition, firstOffset, lastOffset, records, values: testValues, unreadable };
}

/** A batch as the runner cuts it: `count` consecutive records of one partition from `firstOffset`. */
export function batchOf(partition: number, firstOffset: number, count: number, record: (i: number) => FlowRecord = aggregatedRecord, topic = 'flows.processed'): ExportBatch {
  return testBatch(exportedRecords(Array.from({ length: count }, (_, i) => record(firstOffset + i)), firstOffset), partition, topic);
}

/** Writes records to a topic, record i to partition(i), in sends of 1000. */
export async function writeRecords(log: MessageLog, topic: string, records: readonly FlowRecord[], partition: (i: number) => number): Promise<void> {
  const writer = flowRecordWriter();
  const producer = log.producer();
  try {
    const byPartition = new Map<number, Buffer[]>();
    records.forEach((r, i) => {
      const p = partition(i);
      let values = byPartition.get(p);
      if (values === undefined) byPartition.set(p, (values = []));
      values.push(writer.encode(r));
    });
    for (const [p, values] of byPartition) {
      for (let at = 0; at < values.length; at += 1000) {
        await producer.send(topic, values.slice(at, at + 1000).map((value) => ({ key: null, value, partition: p })));
      }
    }
  } finally {
    await producer.close();
  }
}

export const TEST_DESTINATION_DOWN = 'FLOWAGG_ERR_TEST_DESTINATION_DOWN';

type Behaviour = 'accept' | 'down' | 'acceptThenHang' | 'failAfterAccept';

/**
 * A destination that keeps the batches it accepted (their records that read, as an exporter writes them) and fails on command: `down` refuses everything
 * (its start too: unreachable at start; nothing delivered), `failAfterAccept` keeps the batch and then
 * fails (a partial delivery, as a TCP reset after the write), `acceptThenHang` keeps it and never
 * answers (a crash between delivery and commit, once the runner is stopped or killed).
 */
export class TestDestination implements Exporter {
  readonly accepted: ExportBatch[] = [];
  attempts = 0;
  startAttempts = 0;
  started = false;
  behaviour: Behaviour = 'accept';
  readonly #scanned = new ScannedRecord();

  constructor(
    readonly kind: ExporterKind = 'flowlog',
    readonly batching: BatchPolicy = { maxRecords: 100, maxDelayMs: 50 },
    readonly deliverDelayMs = 0,
  ) {}

  async start(): Promise<void> {
    this.startAttempts++;
    if (this.behaviour === 'down') throw notDelivered(new FlowaggError(TEST_DESTINATION_DOWN, 'test destination is down'));
    this.started = true;
  }

  async stop(): Promise<void> {}

  get records(): number {
    return this.accepted.reduce((n, b) => n + b.records.length, 0);
  }

  async deliver(batch: ExportBatch, signal: AbortSignal): Promise<void> {
    this.attempts++;
    if (this.deliverDelayMs > 0) await new Promise((r) => setTimeout(r, this.deliverDelayMs));
    if (this.behaviour === 'down') throw notDelivered(new FlowaggError(TEST_DESTINATION_DOWN, 'test destination is down'));
    const readable: ExportedRecord[] = [];
    scanEach(batch, this.#scanned, (record) => readable.push(record));
    this.accepted.push({ ...batch, records: readable });
    if (this.behaviour === 'failAfterAccept') throw new FlowaggError(TEST_DESTINATION_DOWN, 'test destination failed after taking the batch');
    if (this.behaviour === 'acceptThenHang') {
      await new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    }
  }

  /** Resolves once `records` records were accepted in total; rejects after timeoutMs. */
  async waitFor(records: number, timeoutMs = 60_000): Promise<void> {
    await until(`the test destination to accept ${records} records`, () => this.records >= records, { timeoutMs });
  }
}

/** A port nobody listens on (bound, then closed): an unreachable destination. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface OutageSwitch {
  down(): void;
  up(): void;
}

/**
 * Writes aggregatedRecord(0 .. total - 1) to `topic` (round robin over `partitions`) in ten sends a
 * second apart, and takes the destination down for `downMs` after the third: records keep flowing
 * while it is down. Resolves once everything is written and the destination is up again. `seen` gets
 * every record written, for the expected totals.
 */
export async function flowThroughOutage(log: MessageLog, topic: string, partitions: number, total: number, outage: OutageSwitch, downMs: number, seen: (r: FlowRecord) => void): Promise<void> {
  const chunks = 10;
  let upAgain: Promise<void> = Promise.resolve();
  for (let c = 0; c < chunks; c++) {
    if (c === 3) {
      outage.down();
      upAgain = new Promise((resolve) => setTimeout(() => resolve(outage.up()), downMs));
    }
    const from = Math.floor((c * total) / chunks);
    const records = Array.from({ length: Math.floor(((c + 1) * total) / chunks) - from }, (_, k) => aggregatedRecord(from + k));
    records.forEach(seen);
    await writeRecords(log, topic, records, (k) => (from + k) % partitions);
    await new Promise((r) => setTimeout(r, 1000));
  }
  await upAgain;
}

/** How long a test waits for a real destination (ClickHouse, S3) to hold everything, and how often it asks. */
export const DESTINATION_WAIT = { timeoutMs: 180_000, intervalMs: 250 } as const;
