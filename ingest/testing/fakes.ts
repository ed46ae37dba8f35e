// Fakes for the ingest tests and benchmark; production code never imports this file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExpectedRecord } from '../../integration-tests/harness/softflowd-flows.js';
import { expectedExport, writeTrafficPcap } from '../../integration-tests/harness/softflowd-export.js';
import { runSoftflowd, type SoftflowdRun, type SoftflowdTimeFormat, type SoftflowdVersion } from '../../integration-tests/harness/softflowd.js';
import { conversationMix, renderTraffic } from '../../integration-tests/harness/traffic.js';
import type { MessageEncoder } from '../../lib/ipfix/message-encoder.js';
import { formatIpv4, formatIpv6 } from '../../lib/ipfix/text.js';
import type { FieldValue, Template } from '../../lib/ipfix/types.js';
import { readAll } from '../../lib/log/embedded/testing/read-all.js';
import { until } from '../../lib/testing/until.js';
import { recordsOfRuns } from '../../lib/log/record-runs.js';
import type { LogRecord, MessageLog, ProduceRecord, Producer, RecordMetadata, RecordRun } from '../../lib/log/types.js';
import { clockTickTime } from '../../schemas/clock-tick.js';
import { type FlowRecord, flowRecordReader } from '../../schemas/flow-record.js';
import { antreaAgentTemplate } from '../../lib/ipfix/testing/templates.js';

/** A producer whose sends resolve only when the test says so: a log that stalled. */
export class ControllableProducer implements Producer {
  readonly sent: { topic: string; records: readonly ProduceRecord[] }[] = [];
  #stalled: boolean;
  #waiting: (() => void)[] = [];
  /** Errors thrown by the next sends, one each. */
  readonly failures: unknown[] = [];

  constructor(opts: { stalled?: boolean } = {}) {
    this.#stalled = opts.stalled ?? false;
  }

  get pendingSends(): number {
    return this.#waiting.length;
  }

  stall(): void {
    this.#stalled = true;
  }

  release(): void {
    this.#stalled = false;
    for (const resolve of this.#waiting.splice(0)) resolve();
  }

  async send(topic: string, records: readonly ProduceRecord[]): Promise<RecordMetadata[]> {
    if (this.#stalled) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    this.sent.push({ topic, records });
    return records.map((_, i) => ({ topic, partition: 0, offset: i }));
  }

  /** Keeps copies, as a log does: the queue writes the runs' chunks again once the send resolves. */
  async sendRuns(topic: string, runs: readonly RecordRun[]): Promise<void> {
    await this.send(topic, recordsOfRuns(runs).map((r) => ({ key: Buffer.from(r.key!), value: Buffer.from(r.value!) })));
  }

  async close(): Promise<void> {}

  /** The FlowRecords sent (ingest's clock ticks, which have no value, left out). */
  records(): ProduceRecord[] {
    return this.sent.flatMap((s) => s.records).filter((r) => r.value !== null);
  }
}

/** The Antrea agent's IPv4 template (43 elements), as template `id` of domain `observationDomainId`. */
export function agentTemplate(id = 256, observationDomainId = 1): Template {
  return antreaAgentTemplate(id, observationDomainId);
}

/** Values of record `i` for an agent template: distinct per record, typed per element. */
export function agentRecordValues(template: Template, i: number): FieldValue[] {
  return template.fields.map(({ ie }) => {
    switch (ie.type) {
      case 'ipv4Address':
        return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      case 'ipv6Address':
        return `fd00::${(i & 0xffff).toString(16)}`;
      case 'string':
        return `${ie.name}-${i}`;
      case 'dateTimeSeconds':
        return 1_700_000_000 + i;
      case 'unsigned8':
        return ie.name === 'protocolIdentifier' ? 6 : (i % 250) + 1;
      case 'unsigned16':
        return (i % 60000) + 1;
      case 'unsigned32':
        return i + 1;
      case 'unsigned64':
        return i * 1000 + 7;
      default:
        throw new Error(`agentRecordValues: no value rule for ${ie.name} (${ie.type})`);
    }
  });
}

/** IPFIX messages of an agent-like exporter: the template, then records from..from+count. */
export function agentMessages(encoder: MessageEncoder, template: Template, from: number, count: number, withTemplate = true): Buffer[] {
  if (withTemplate) encoder.addTemplate(template);
  for (let i = from; i < from + count; i++) encoder.addRecord(template, agentRecordValues(template, i));
  return encoder.flush().map((m) => Buffer.from(m));
}

/** A MessageLog whose producer is `producer` (e.g. a stalled one), the rest from a real log. */
export function withProducer(log: MessageLog, producer: Producer): MessageLog {
  return {
    backend: log.backend,
    producer: () => producer,
    transactionalProducer: (id) => log.transactionalProducer(id),
    consumer: (config) => log.consumer(config),
    reader: (config) => log.reader(config),
    admin: () => log.admin(),
    close: () => log.close(),
  };
}

/** Every record of a flows.raw topic but ingest's clock ticks: the FlowRecords, as the log holds them. */
export async function readFlowRecordValues(log: MessageLog, topic = 'flows.raw'): Promise<LogRecord[]> {
  return (await readAll(log, topic)).filter((r) => clockTickTime(r) === undefined);
}

/** Every FlowRecord in a flows.raw topic, decoded. */
export async function readFlowRecords(log: MessageLog, topic = 'flows.raw'): Promise<{ key: Buffer | null; record: FlowRecord }[]> {
  const reader = flowRecordReader();
  return (await readFlowRecordValues(log, topic)).map((r) => ({ key: r.key, record: reader.decode(r.value!) }));
}

/** A FlowRecord seen as the harness's ExpectedRecord (unidirectional softflowd records), for comparison. */
export function softflowdView(r: FlowRecord): ExpectedRecord {
  const v4 = r.sourceIPv4Address !== null;
  const address = (b: Buffer | null) => (b === null ? '' : b.length === 4 ? formatIpv4(b, 0) : formatIpv6(b, 0));
  const num = (v: unknown) => (typeof v === 'number' ? v : 0);
  return {
    ipVersion: num(r.ipVersion) as 4 | 6,
    proto: num(r.protocolIdentifier),
    src: address(v4 ? r.sourceIPv4Address : r.sourceIPv6Address),
    dst: address(v4 ? r.destinationIPv4Address : r.destinationIPv6Address),
    srcPort: num(r.sourceTransportPort),
    dstPort: num(r.destinationTransportPort),
    startUs: num(r.flowStartMilliseconds) * 1000,
    endUs: num(r.flowEndMilliseconds) * 1000,
    octets: num(r.octetDeltaCount),
    packets: num(r.packetDeltaCount),
    tcpFlags: num(r.tcpControlBits),
    tos: num(r.ipClassOfService),
    icmpTypeCode: num(r.icmpTypeCodeIPv4 ?? r.icmpTypeCodeIPv6),
  };
}

/**
 * Runs softflowd over generated traffic into a running ingest (its UDP or TCP port) and returns what
 * softflowd says it exported, the records it must have exported, and the FlowRecords in flows.raw.
 */
export async function softflowdIntoIngest(
  log: MessageLog,
  port: number,
  opts: { transport: 'udp' | 'tcp'; timeFormat: SoftflowdTimeFormat; conversations: number; written: () => number; topic?: string; signal?: AbortSignal; version?: SoftflowdVersion },
): Promise<{ run: SoftflowdRun; expected: ExpectedRecord[]; records: FlowRecord[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-softflowd-'));
  try {
    const traffic = renderTraffic(conversationMix({ count: opts.conversations, seed: 11 }));
    const pcapPath = await writeTrafficPcap(traffic, dir);
    const run = await runSoftflowd({
      pcapPath, collector: { address: '127.0.0.1', port }, transport: opts.transport, bidirectional: false, timeFormat: opts.timeFormat,
      ...(opts.signal && { signal: opts.signal }), ...(opts.version !== undefined && { version: opts.version }),
    });
    // A wait that ends at its bound leaves the comparison to the caller: over UDP records may be lost.
    await until('ingest to write what softflowd exported', () => opts.written() >= run.stats.recordsExported, { timeoutMs: 20_000 }).catch(() => {});
    const records = (await readFlowRecords(log, opts.topic)).map((r) => r.record);
    return { run, expected: expectedExport(traffic, { bidirectional: false, timeFormat: opts.timeFormat, ...(opts.version !== undefined && { version: opts.version }) }), records };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
