// `flowagg pipeline`: a capture through ingest's decoding and the processor, on a temporary embedded log,
// out as JSON lines. The same code as the services, end to end, so that what it prints is what the
// services would write: the capture's messages are decoded and transcoded per exporter session (the
// exporter's address and port from the IP headers of a pcap; an IPFIX file is one session), with the
// messages' export times as time, into flows.raw (one partition, so the order of the file is kept);
// the processor consumes it with its wall-clock watermark advance off, and at the end of the input
// exports every flow it still holds. The output is a function of the file alone: the same file gives
// the same bytes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CaptureError } from '../lib/capture/errors.js';
import { capturedMessages } from '../lib/capture/messages.js';
import { IpfixError } from '../lib/ipfix/errors.js';
import type { MetadataSource } from '../lib/k8s/metadata.js';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import type { MessageLog, RecordRun } from '../lib/log/types.js';
import type { Logger } from '../lib/telemetry/logger.js';
import { RunWriter } from '../ingest/records/run-writer.js';
import { TranscoderCache } from '../ingest/records/transcoder-cache.js';
import { ExporterSession } from '../ingest/session.js';
import { transcodeMessage } from '../ingest/transcode-message.js';
import { packetVersion } from '../lib/ipfix/netflow-message.js';
import { NETFLOW_V5_VERSION, NETFLOW_V9_VERSION } from '../lib/ipfix/netflow-header.js';
import { flowRecordReader } from '../schemas/flow-record.js';
import { flowRecordToJson } from '../schemas/flow-record-json.js';
import type { ProcessorConfig } from '../processor/config.js';
import { createProcessor, type Processor } from '../processor/index.js';

/** UDP templates live this long on the capture's clock (go-ipfix's default). */
const TEMPLATE_TTL_MS = 1_800_000;
const SEND_RECORDS = 5000;

export interface PipelineIo {
  /** One JSON object (without the newline). */
  readonly write: (line: string) => void;
  /** A problem with the input, as decode reports it. */
  readonly report: (line: string) => void;
}

export interface PipelineResult {
  readonly records: number;
  readonly outputs: number;
  readonly problems: number;
}

/** "10.0.0.1:4739" or "[fd00::1]:4739" → address and port. */
function endpointOf(exporter: string): { address: string; port: number } {
  const colon = exporter.lastIndexOf(':');
  const host = exporter.slice(0, colon);
  return { address: host.startsWith('[') ? host.slice(1, -1) : host, port: Number(exporter.slice(colon + 1)) };
}

function netflowProtocol(version: number): 'netflow_v9' | 'netflow_v5' | undefined {
  return version === NETFLOW_V9_VERSION ? 'netflow_v9' : version === NETFLOW_V5_VERSION ? 'netflow_v5' : undefined;
}

/** Decodes the capture into flows.raw; returns the records written and the problems reported. */
async function ingestCapture(path: string, log: MessageLog, topic: string, io: PipelineIo): Promise<{ records: number; problems: number }> {
  const sessions = new Map<string, { session: ExporterSession; clock: { now: number } }>();
  const writer = new RunWriter();
  // The layouts of one capture, compiled as ingest compiles them (its defaults: ingest.templates).
  const transcoders = new TranscoderCache({ maxLayouts: 4096, compileAfterRecords: 16 });
  const producer = log.producer();
  let pending: RecordRun[] = [];
  let pendingRecords = 0;
  let records = 0;
  let problems = 0;
  const report = (offset: number, message: string, code?: string) => {
    problems++;
    io.report(`flowagg pipeline: ${path}: byte ${offset}: ${message}${code ? ` [${code}]` : ''}`);
  };
  const send = async () => {
    if (pendingRecords === 0) return;
    await producer.sendRuns(topic, pending);
    records += pendingRecords;
    pending = [];
    pendingRecords = 0;
  };
  try {
    for (const m of capturedMessages(path)) {
      if (m.kind === 'skipped') continue;
      // A capture's datagrams may be NetFlow v9 or v5 (an IPFIX file holds IPFIX only): sessions of their own.
      const protocol = m.exporter === undefined ? 'ipfix' : netflowProtocol(packetVersion(m.bytes)) ?? 'ipfix';
      const key = `${protocol}|${m.exporter ?? ''}`;
      let entry = sessions.get(key);
      if (entry === undefined) {
        const clock = { now: 0 };
        const session = m.exporter === undefined
          ? new ExporterSession('file', { address: '', port: 0 }, { templateTtlMs: TEMPLATE_TTL_MS, now: () => clock.now })
          : new ExporterSession('udp', endpointOf(m.exporter), { templateTtlMs: TEMPLATE_TTL_MS, now: () => clock.now }, protocol);
        entry = { session, clock };
        sessions.set(key, entry);
      }
      entry.clock.now = m.timestampMs ?? 0;
      const buf = Buffer.from(m.bytes);
      try {
        // The header's export time (NetFlow's unix seconds follow its sysUpTime) stands for the receive time.
        const at = protocol === 'ipfix' ? 4 : 8;
        const exportTime = buf.length >= at + 4 ? buf.readUInt32BE(at) : 0;
        const message = transcodeMessage(entry.session, buf, writer, exportTime * 1000, transcoders);
        for (const e of message.errors) report(m.offset + (m.exporter === undefined ? (e.context.offset ?? 0) : 0), `${m.exporter ? `message from ${m.exporter}: ` : ''}${e.message}`, e.code);
        // The runs lie in the writer's chunks, which are never reused: copying them is not needed.
        pending.push(...message.runs);
        pendingRecords += message.records;
      } catch (e) {
        if (!(e instanceof IpfixError)) throw e;
        report(m.offset, `${m.exporter ? `message from ${m.exporter}: ` : ''}${e.message}`, e.code);
      }
      if (pendingRecords >= SEND_RECORDS) await send();
    }
  } catch (e) {
    if (!(e instanceof CaptureError)) throw e;
    report(Number(e.context.offset ?? 0), e.message, e.code);
  }
  await send();
  await producer.close();
  return { records, problems };
}

/** Resolves once the processor committed every record of its input partitions. */
async function caughtUp(processor: Processor, log: MessageLog, topic: string): Promise<void> {
  for (;;) {
    const ends = await log.admin().fetchTopicOffsets(topic);
    const positions = new Map(processor.tasks().map((t) => [t.partition, t.committedOffset] as const));
    if (ends.every((e) => e.high === 0 || (positions.get(e.partition) ?? -1) >= e.high)) return;
    await sleep(10);
  }
}

/** Runs a capture through the processor (the configuration's mode and rules) and writes what it outputs. */
export async function runPipeline(path: string, config: ProcessorConfig, deps: { metadata?: MetadataSource; logger?: Logger }, io: PipelineIo): Promise<PipelineResult> {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-pipeline-'));
  const log = await openEmbeddedLog({ dir, fsync: { policy: 'interval' } });
  try {
    const topics = config.log.topics;
    await log.admin().createTopics([{ topic: topics.flowsRaw, partitions: 1 }]);
    const input = await ingestCapture(path, log, topics.flowsRaw, io);
    const processor = createProcessor(config, { log, ...deps });
    await processor.start();
    try {
      await caughtUp(processor, log, topics.flowsRaw);
      await processor.finish();
    } finally {
      await processor.stop();
    }
    const reader = log.reader();
    const decode = flowRecordReader();
    let outputs = 0;
    try {
      for (let partition = 0; partition < topics.flowsProcessedPartitions; partition++) {
        for (let next = 0; ;) {
          const r = await reader.fetch({ topic: topics.flowsProcessed, partition }, next);
          for (const rec of r.records) io.write(JSON.stringify(flowRecordToJson(decode.decode(rec.value!))));
          outputs += r.records.length;
          next = r.next;
          if (next >= r.highWatermark) break;
        }
      }
    } finally {
      await reader.close();
    }
    return { records: input.records, outputs, problems: input.problems };
  } finally {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
