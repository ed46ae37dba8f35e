// NetFlow v9 decoding (issue 20): records per CPU-second of this process, on packets of a Cisco IOS-like v9
// template (20 fields, 30 records a packet) and on IPFIX messages carrying the same records (the same IANA
// elements and bytes, 30 a message), so the two protocols differ only in their headers and set ids:
// - the codec's decode, every value materialised (decodeNetflow vs decodeMessage);
// - ingest's transcoding into FlowRecords (transcodeMessage: the hot path of the collector);
// - the whole collector over UDP on loopback, in the same run: flowagg ingest (NetFlow port, embedded log)
//   and nfcapd (nfdump 1.7.1: receive, decode, write its file), each fed by the same sender in a child
//   process, each measured by its own CPU time. Records stored are counted (nfdump -I for nfcapd), so a
//   datagram a receiver dropped is not counted as work done.
// NetFlow v5 (30 fixed records a packet) is measured through the codec and the transcoder too. The codec and
// transcoder cases run in alternating rounds and report their median, so that neither protocol gains from
// running second (warmer code) on this shared machine.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeMessage } from '../lib/ipfix/decode-message.js';
import { MessageEncoder } from '../lib/ipfix/message-encoder.js';
import { decodeNetflow } from '../lib/ipfix/netflow-message.js';
import { netflowFieldElement } from '../lib/ipfix/netflow-fields.js';
import { TemplateStore } from '../lib/ipfix/template-store.js';
import { makeTemplate } from '../lib/ipfix/testing/templates.js';
import { ROUTER_TEMPLATE, routerValues, v5Packet, v9DataSet, v9Packet, v9Record, v9TemplateSet } from '../lib/ipfix/testing/netflow-packets.js';
import type { FieldValue } from '../lib/ipfix/types.js';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { ingestConfig } from '../ingest/config.js';
import { createIngest } from '../ingest/index.js';
import { TranscoderCache } from '../ingest/records/transcoder-cache.js';
import { ExporterSession, type SessionProtocol } from '../ingest/session.js';
import { transcodeMessage } from '../ingest/transcode-message.js';
import { findExecutable, runTool } from '../integration-tests/harness/tools.js';
import { freeUdpPort } from '../integration-tests/harness/ipfix-peers.js';
import { RunWriter } from '../ingest/records/run-writer.js';
import { type BenchResult, type Benchmark, measureCpu } from './types.js';

const PACKETS = 400;
const PER_PACKET = 30;
const RECORDS = PACKETS * PER_PACKET;
const UP = 86_400_000;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const rows: FieldValue[][] = Array.from({ length: RECORDS }, (_, i) => routerValues(i, UP, 1 + (i % 2)));

function v9Packets(from = 1): Buffer[] {
  return Array.from({ length: PACKETS }, (_, p) => {
    const records = rows.slice(p * PER_PACKET, (p + 1) * PER_PACKET).map((v) => v9Record(ROUTER_TEMPLATE, v));
    return v9Packet({ sysUpTime: UP, unixSecs: 1_700_000_000, sequence: from + p, sourceId: 1 }, [v9TemplateSet([ROUTER_TEMPLATE]), v9DataSet(256, records)], PER_PACKET + 1);
  });
}

/** The same records as IPFIX: the elements the v9 fields map to, the same lengths and bytes. */
function ipfixMessages(): Uint8Array[] {
  const template = makeTemplate(256, ROUTER_TEMPLATE.fields.map((f) => ({ ie: netflowFieldElement(f.type, f.length, false), length: f.length, scope: false })), 1);
  const out: Uint8Array[] = [];
  for (let p = 0; p < PACKETS; p++) {
    const enc = new MessageEncoder({ observationDomainId: 1, exportTime: () => 1_700_000_000, initialSequenceNumber: p * PER_PACKET });
    enc.addTemplate(template);
    for (const v of rows.slice(p * PER_PACKET, (p + 1) * PER_PACKET)) enc.addRecord(template, v);
    out.push(...enc.flush());
  }
  return out;
}

function v5Packets(): Buffer[] {
  return Array.from({ length: PACKETS }, (_, p) => v5Packet({ sysUpTime: UP, unixSecs: 1_700_000_000, unixNsecs: 0, flowSequence: p * PER_PACKET, engineType: 0, engineId: 1, sampling: 0 },
    Array.from({ length: PER_PACKET }, (_, i) => ({ src: `198.51.100.${i}`, dst: `203.0.113.${p % 250}`, nextHop: '192.0.2.254', input: 1, output: 2, packets: i + 1, octets: 1500 * (i + 1), first: UP - 6000, last: UP - 1000, srcPort: 1024 + i, dstPort: 443, tcpFlags: 0x1b, protocol: 6, tos: 0, srcAs: 64500, dstAs: 64501, srcMask: 24, dstMask: 24 }))));
}

function transcoding(protocol: SessionProtocol, messages: readonly Uint8Array[]): () => void {
  const session = new ExporterSession('udp', { address: '192.0.2.1', port: 2055 }, { templateTtlMs: 1_800_000, now: Date.now }, protocol);
  const cache = new TranscoderCache({ maxLayouts: 16, compileAfterRecords: 16 });
  const writer = new RunWriter(undefined, 16 << 20);
  const buffers = messages.map((m) => Buffer.from(m.buffer, m.byteOffset, m.byteLength));
  return () => {
    writer.out.reset();
    for (const m of buffers) if (transcodeMessage(session, m, writer, 0, cache).records !== PER_PACKET) throw new Error(`${protocol}: a packet did not transcode whole`);
  };
}

/** Sends `packets` (repeated `rounds` times, sequence numbers following) over UDP to 127.0.0.1:port from a child process, paced. */
const SENDER = `
const { createSocket } = require('node:dgram');
process.once('message', ({ port, packets, rounds }) => {
  const s = createSocket({ type: 'udp4', sendBufferSize: 4 << 20 });
  let i = 0;
  const total = packets.length * rounds;
  const next = () => {
    if (i >= total) return s.close(() => process.send('done', () => process.exit(0)));
    const p = Buffer.from(packets[i % packets.length]);
    p.writeUInt32BE((i + 1) >>> 0, 12);
    i++;
    s.send(p, port, '127.0.0.1', () => (i % 50 === 0 ? setTimeout(next, 1) : next()));
  };
  next();
});
`;

async function send(port: number, packets: readonly Buffer[], rounds: number): Promise<void> {
  const child = spawn(process.execPath, ['-e', SENDER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve()).once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`the sender exited with ${code}`)));
    child.send({ port, packets, rounds });
  });
}

/** Times the packets are sent: enough CPU time for nfcapd's 10 ms ticks to measure it within a few percent. */
const FLOWAGG_ROUNDS = 30;
const NFCAPD_ROUNDS = 100;

/** flowagg ingest on the NetFlow port, embedded log: records written per CPU-second of this process. */
async function flowaggIngest(packets: readonly Buffer[], rounds: number): Promise<{ records: number; cpuSeconds: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-bench-netflow-'));
  const log = await openEmbeddedLog({ dir });
  const ingest = createIngest(ingestConfig.parse({ aggregatorTransportProtocol: 'none', ingest: { host: '127.0.0.1', netflow: { enabled: true, port: 0 }, grpc: { enabled: false } } }), { log });
  await ingest.start();
  try {
    const cpu = process.cpuUsage();
    await send(ingest.ports.netflow!, packets, rounds);
    // Until nothing more reaches the log for a second (UDP cannot say it is done).
    for (let idle = 0, last = -1; idle < 200; ) {
      await new Promise((r) => setTimeout(r, 5));
      const written = ingest.stats().written;
      idle = written === last ? idle + 1 : 0;
      last = written;
    }
    const used = process.cpuUsage(cpu);
    return { records: ingest.stats().written, cpuSeconds: (used.user + used.system) / 1e6 };
  } finally {
    await ingest.stop();
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** nfcapd's CPU time (utime + stime, clock ticks of 10 ms) from /proc. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** nfcapd receiving the same packets: flows it stored (nfdump -I) per CPU-second of nfcapd. */
async function nfcapd(packets: readonly Buffer[], rounds: number): Promise<{ records: number; cpuSeconds: number }> {
  const port = await freeUdpPort();
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-bench-nfcapd-'));
  const child = spawn(findExecutable('nfcapd')!, ['-p', String(port), '-b', '127.0.0.1', '-w', dir, '-t', '3600', '-B', String(4 << 20)], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (b: Buffer) => ((output += b.toString()), output.includes('Startup') && resolve());
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', () => reject(new Error(`nfcapd exited: ${output}`)));
    });
    const before = cpuTicks(child.pid!);
    await send(port, packets, rounds);
    await new Promise((r) => setTimeout(r, 500));
    const ticks = cpuTicks(child.pid!) - before;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await exited;
    const file = readdirSync(dir).find((f) => f.startsWith('nfcapd.') && !f.includes('current'))!;
    const stats = await runTool('nfdump', ['-r', join(dir, file), '-I'], { timeoutMs: 60_000 });
    const flows = Number(/^Flows: (\d+)/m.exec(stats.stdout)?.[1] ?? NaN);
    return { records: flows, cpuSeconds: ticks / 100 };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

const ROUNDS_MEDIAN = 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Records per CPU-second of each case, alternating the cases round by round; the median of each. */
async function alternating(cases: Record<string, () => void>): Promise<Record<string, number>> {
  const rates: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let round = 0; round < ROUNDS_MEDIAN; round++) {
    for (const [name, fn] of Object.entries(cases)) rates[name]!.push((await measureCpu(fn, RECORDS, 1000)).cpu);
  }
  return Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, median(v)]));
}

function decoding(name: string, decode: (m: Uint8Array, store: TemplateStore) => number, messages: readonly Uint8Array[]): () => void {
  const store = new TemplateStore({ transport: 'udp' });
  return () => {
    let n = 0;
    for (const m of messages) n += decode(m, store);
    if (n !== RECORDS) throw new Error(`${name}: ${n} of ${RECORDS} records decoded`);
  };
}

const bench: Benchmark = async (log) => {
  const v9 = v9Packets();
  const ipfix = ipfixMessages();
  const v5 = v5Packets();
  const context = () => `load average ${loadavg()[0]?.toFixed(1)}`;
  const r = await alternating({
    decodeV9: decoding('NetFlow v9', (m, s) => decodeNetflow(m, s).records.length, v9),
    decodeIpfix: decoding('IPFIX', (m, s) => decodeMessage(m, s).records.length, ipfix),
    decodeV5: decoding('NetFlow v5', (m, s) => decodeNetflow(m, s).records.length, v5),
    transcodeV9: transcoding('netflow_v9', v9),
    transcodeIpfix: transcoding('ipfix', ipfix),
    transcodeV5: transcoding('netflow_v5', v5),
  });
  for (const [k, v] of Object.entries(r)) log(`${k}: ${fmt(v)} records/CPU-s (median of ${ROUNDS_MEDIAN} alternating rounds)`);
  const note = `${PER_PACKET} records a packet, 20 fields (Cisco IOS-like template), median of ${ROUNDS_MEDIAN} alternating rounds, ${context()}`;
  const results: BenchResult[] = [
    { name: 'netflow v9 decode (codec)', value: r.decodeV9!, unit: 'records/CPU-s', target: r.decodeIpfix!, note: `decodeNetflow, every value materialised; target: IPFIX decode of the same records in this run; ${note}` },
    { name: 'ipfix decode of the same records (codec)', value: r.decodeIpfix!, unit: 'records/CPU-s', note: `decodeMessage; ${note}` },
    { name: 'netflow v5 decode (codec)', value: r.decodeV5!, unit: 'records/CPU-s', note: `decodeNetflow, 48-byte records; ${note}` },
    { name: 'netflow v9 transcode to FlowRecords', value: r.transcodeV9!, unit: 'records/CPU-s', target: r.transcodeIpfix!, note: `transcodeMessage, compiled transcoder; target: IPFIX of the same records in this run; ${note}` },
    { name: 'ipfix transcode of the same records', value: r.transcodeIpfix!, unit: 'records/CPU-s', note: `transcodeMessage; ${note}` },
    { name: 'netflow v5 transcode to FlowRecords', value: r.transcodeV5!, unit: 'records/CPU-s', note: `transcodeMessage; ${note}` },
  ];
  if (findExecutable('nfcapd') === undefined || findExecutable('nfdump') === undefined) {
    log('nfcapd/nfdump not installed (Debian package nfdump): the collector comparison is left out');
    return results;
  }
  const ours = await flowaggIngest(v9, FLOWAGG_ROUNDS);
  const theirs = await nfcapd(v9, NFCAPD_ROUNDS);
  log(`over UDP: flowagg ingest stored ${ours.records} of ${RECORDS * FLOWAGG_ROUNDS} records in ${ours.cpuSeconds.toFixed(2)} CPU-s; nfcapd ${theirs.records} of ${RECORDS * NFCAPD_ROUNDS} in ${theirs.cpuSeconds.toFixed(2)} CPU-s`);
  const oursRate = ours.records / ours.cpuSeconds;
  const theirsRate = theirs.records / theirs.cpuSeconds;
  results.push(
    { name: 'netflow v9 over UDP: flowagg ingest', value: oursRate, unit: 'records/CPU-s', target: 2 * theirsRate, note: `receive, decode, FlowRecords into the embedded log (${ours.records} of ${RECORDS * FLOWAGG_ROUNDS} stored); target: twice nfcapd's in this run; ${context()}` },
    { name: 'netflow v9 over UDP: nfcapd 1.7.1', value: theirsRate, unit: 'records/CPU-s', note: `receive, decode, write its file (${theirs.records} of ${RECORDS * NFCAPD_ROUNDS} stored, counted with nfdump -I); CPU time from /proc, ${theirs.cpuSeconds.toFixed(2)} s in 10 ms ticks` },
  );
  return results;
};

export default bench;
