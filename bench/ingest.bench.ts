// Ingest throughput: N simulated Antrea agents send IPFIX over TCP (the agent's 43-element template,
// encoded with the codec's MessageEncoder) into a running ingest that writes flows.raw to the embedded
// log (default durability: fsync per group commit) or to Kafka (KAFKA_BROKERS, else the local broker
// started through integration-tests/harness/kafka.ts). The agents run in a child process, writing
// pre-encoded messages (sequence numbers patched per message) and honouring TCP backpressure, so the
// process measured is the ingest alone; besides wall-clock records/s, records per CPU-second of that
// process are reported, since this machine is shared and other work takes wall time. A figure is records acknowledged by the log per second, from the
// first byte sent to the last record acknowledged; every run checks that nothing was lost.
// Memory: heap and RSS after runs with 10 and 200 agents (each with two templates), after a GC.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createIngestService } from '../ingest/thread/threaded-ingest.js';
import { ingestConfig } from '../ingest/config.js';
import { agentRecordValues, agentTemplate } from '../ingest/testing/fakes.js';
import { startKafka } from '../integration-tests/harness/kafka.js';
import { MessageEncoder } from '../lib/ipfix/message-encoder.js';
import { logConfigSchema, type LogConfig } from '../lib/log/config.js';
import { openLog } from '../lib/log/index.js';
import { until } from '../lib/testing/until.js';
import type { BenchResult, Benchmark } from './types.js';

/** The agents (a child process): connect, then write each agent's messages round-robin until `total` records are sent. */
const AGENTS_PROCESS = `
const { connect } = require('node:net');
process.once('message', ({ port, agents, messages, counts, total }) => {
let sent = 0;
let started = 0;
async function agent(a) {
  const socket = connect({ port, host: '127.0.0.1', noDelay: false });
  await new Promise((r, j) => socket.once('connect', r).once('error', j));
  const share = Math.ceil(total / agents);
  let seq = 0;
  let mine = 0;
  for (let i = 0; mine < share; i = (i + 1) % messages[a].length) {
    const m = Buffer.from(messages[a][i]);
    m.writeUInt32BE(seq >>> 0, 8);
    seq += counts[a][i];
    mine += counts[a][i];
    if (!socket.write(m)) await new Promise((r) => socket.once('drain', r));
  }
  sent += mine;
  await new Promise((r) => socket.end(r));
}
started = Date.now();
Promise.all(Array.from({ length: agents }, (_, a) => agent(a))).then(() => process.send({ sent, started }, () => process.exit(0)));
});
`;

interface RunResult {
  readonly recordsPerSecond: number;
  /** Records per CPU-second of the ingest process (the agents run in another process). */
  readonly recordsPerCpuSecond: number;
  readonly sent: number;
  readonly written: number;
  readonly heapMiB: number;
  readonly rssMiB: number;
}

/** Each agent: two templates (ids 256, 257) and a cycle of messages using both. */
function encodeAgents(agents: number, messagesPerAgent: number): { messages: ArrayBuffer[][]; counts: number[][] } {
  const messages: ArrayBuffer[][] = [];
  const counts: number[][] = [];
  for (let a = 0; a < agents; a++) {
    const encoder = new MessageEncoder({ observationDomainId: a + 1 });
    const templates = [agentTemplate(256, a + 1), agentTemplate(257, a + 1)];
    const own: ArrayBuffer[] = [];
    const n: number[] = [];
    for (let m = 0; m < messagesPerAgent; m++) {
      const t = templates[m % 2]!;
      // Templates again in every message: cheap, and each message stands alone when the cycle restarts.
      encoder.addTemplate(templates[0]!);
      encoder.addTemplate(templates[1]!);
      const records = 200;
      for (let i = 0; i < records; i++) encoder.addRecord(t, agentRecordValues(t, a * 1_000_000 + m * records + i));
      const flushed = encoder.flush();
      // A message's records: the next message's sequence number minus its own (RFC 7011 §3.1).
      const next = [...flushed.slice(1).map((msg) => Buffer.from(msg.buffer, msg.byteOffset).readUInt32BE(8)), encoder.sequenceNumber];
      flushed.forEach((msg, i) => {
        own.push(msg.slice().buffer);
        n.push(next[i]! - Buffer.from(msg.buffer, msg.byteOffset).readUInt32BE(8));
      });
    }
    messages.push(own);
    counts.push(n);
  }
  return { messages, counts };
}

/** `thread`: ingest on a worker thread of its own (ingest.thread), the log in this one. */
export async function runCase(logConfig: LogConfig, agents: number, total: number, log: (line: string) => void, queue: Record<string, unknown> = {}, thread = false): Promise<RunResult> {
  const messageLog = await openLog(logConfig);
  const run = Math.random().toString(36).slice(2, 8);
  const config = ingestConfig.parse({
    aggregatorTransportProtocol: 'tcp',
    // Every simulated agent connects from 127.0.0.1: one address, 200 connections (the default allows 64).
    ingest: { host: '127.0.0.1', port: 0, queue, thread, tcp: { maxConnectionsPerSource: 1024 }, grpc: { enabled: false } },
    log: { topics: { flowsRaw: `flows.raw.bench-${run}`, templates: `ipfix.templates.bench-${run}` } },
  });
  const ingest = createIngestService(config, { log: messageLog });
  await ingest.start();
  try {
    const { messages, counts } = encodeAgents(agents, 4);
    const cpu = process.cpuUsage();
    const child = spawn(process.execPath, ['-e', AGENTS_PROCESS], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
    const done = new Promise<{ sent: number; started: number }>((resolve, reject) => {
      child.once('message', resolve as (m: unknown) => void).once('error', reject);
      child.once('exit', (code) => reject(new Error(`the agents process exited with ${code} before reporting`)));
    });
    child.send({ port: ingest.ports.tcp, agents, messages: messages.map((m) => m.map((b) => Buffer.from(b))), counts, total });
    const { sent, started } = await done;
    // A wait that ends at its bound (or at a decode error) is judged below.
    await until(`ingest to write the ${sent} records sent`, async () => {
      const s = await ingest.stats();
      return s.written >= sent || s.decodeErrors > 0;
    }, { timeoutMs: 120_000, intervalMs: 5 }).catch(() => {});
    const seconds = (Date.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const cpuSeconds = (used.user + used.system) / 1e6;
    const s = await ingest.stats();
    if (s.decodeErrors > 0 || s.written !== sent) throw new Error(`loss: ${sent} sent, ${s.written} written, ${s.decodeErrors} decode errors`);
    (globalThis as { gc?: () => void }).gc?.();
    const mem = process.memoryUsage();
    const result = { recordsPerSecond: sent / seconds, recordsPerCpuSecond: sent / cpuSeconds, sent, written: s.written, heapMiB: mem.heapUsed / 2 ** 20, rssMiB: mem.rss / 2 ** 20 };
    log(`${logConfig.backend}${thread ? ', ingest on its thread' : ''}, ${agents} agents: ${sent} records in ${seconds.toFixed(2)} s (${cpuSeconds.toFixed(2)} CPU-s, load ${loadavg()[0]!.toFixed(1)}), written ${s.written}, heap ${result.heapMiB.toFixed(0)} MiB, rss ${result.rssMiB.toFixed(0)} MiB`);
    return result;
  } finally {
    await ingest.stop();
    await messageLog.close();
  }
}

const bench: Benchmark = async (log) => {
  const results: BenchResult[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-bench-ingest-'));
  const embedded = logConfigSchema.parse({ embedded: { dir } });
  try {
    await runCase(embedded, 10, 300_000, log); // warm-up: JIT, topic files
    for (const agents of [10, 200]) {
      const r = await runCase(embedded, agents, 2_000_000, log);
      results.push({
        name: `ingest, ${agents} agents over TCP → embedded log`, value: r.recordsPerSecond, unit: 'records/s', target: 250_000,
        note: `Antrea 43-IE template; fsync per group commit; ${r.sent} sent, ${r.written} written (zero loss)`,
      });
      results.push({ name: `ingest, ${agents} agents over TCP → embedded log, per CPU-second`, value: r.recordsPerCpuSecond, unit: 'records/CPU-s', note: 'CPU time of the ingest process' });
      results.push({ name: `ingest heap after ${agents} agents (2 templates each)`, value: r.heapMiB, unit: 'MiB', note: `RSS ${r.rssMiB.toFixed(0)} MiB` });
    }
    // The same 10 Agents with ingest on a thread of its own (ingest.thread): the main thread keeps the log.
    const r = await runCase(embedded, 10, 2_000_000, log, {}, true);
    results.push({
      name: 'ingest on its thread, 10 agents over TCP → embedded log', value: r.recordsPerSecond, unit: 'records/s', target: 250_000,
      note: `ingest.thread true; ${r.sent} sent, ${r.written} written (zero loss); ${Math.round(r.recordsPerCpuSecond)} per CPU-second of the process (both threads)`,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  let brokers = process.env.KAFKA_BROKERS;
  let stopKafka = async () => {};
  if (!brokers) {
    const kafka = await startKafka(log);
    brokers = kafka.brokers;
    stopKafka = kafka.stop;
  }
  try {
    const kafka = logConfigSchema.parse({ backend: 'kafka', kafka: { brokers } });
    await runCase(kafka, 10, 300_000, log);
    const r = await runCase(kafka, 10, 2_000_000, log);
    results.push({
      name: 'ingest, 10 agents over TCP → Kafka', value: r.recordsPerSecond, unit: 'records/s', target: 150_000,
      note: `local single broker, acks=all, no compression; ${r.sent} sent, ${r.written} written (zero loss)`,
    });
    results.push({ name: 'ingest, 10 agents over TCP → Kafka, per CPU-second', value: r.recordsPerCpuSecond, unit: 'records/CPU-s', note: 'CPU time of the ingest process (the broker runs apart)' });
  } finally {
    await stopKafka();
  }
  return results;
};

export default bench;
