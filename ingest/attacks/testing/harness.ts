// The attack tests' harness (issue 11): `flowagg ingest` runs as its own process on the embedded log, as an
// operator runs it; a second process times /healthz; softflowd, a real exporter, exports generated traffic
// from 127.0.0.1 while the test process attacks from other loopback addresses (127.0.0.2 and up), at a
// bounded rate and count. Afterwards the test reads flows.raw and checks that every record softflowd exported
// is there, that /healthz answered within 100 ms at the 99th percentile, and that the collector's peak RSS
// (VmHWM) stayed under the bound the test states. FLOWAGG_ATTACK_DEBUG=1 prints the probe's figures and the
// collector's log.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sortRecords } from '../../../integration-tests/harness/flow-view.js';
import { expectedExport, writeTrafficPcap } from '../../../integration-tests/harness/softflowd-export.js';
import type { ExpectedRecord } from '../../../integration-tests/harness/softflowd-flows.js';
import { runSoftflowd, type SoftflowdVersion } from '../../../integration-tests/harness/softflowd.js';
import { conversationMix, renderTraffic } from '../../../integration-tests/harness/traffic.js';
import { openEmbeddedLog } from '../../../lib/log/embedded/index.js';
import type { FlowRecord, Transport } from '../../../schemas/flow-record.js';
import { readFlowRecords, softflowdView } from '../../testing/fakes.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
/** The latency bound of issue 11, at the 99th percentile. */
export const HEALTHZ_P99_MS = 100;
const MIB = 1024 * 1024;

export interface Target {
  readonly ports: Readonly<Partial<Record<'udp' | 'tcp' | 'tls' | 'grpc' | 'netflow', number>>>;
  readonly http: number;
  readonly dataDir: string;
  recordMetrics(): Promise<Record<string, number>>;
  /** The Prometheus text of /metrics. */
  metrics(): Promise<string>;
  /** Peak resident memory so far (VmHWM), bytes. */
  peakRss(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts `flowagg ingest` with `config` (merged over a loopback, port-0, embedded-log base). */
export async function startTarget(t: TestContext, config: Record<string, unknown>): Promise<Target> {
  const dataDir = await mkdtemp(join(tmpdir(), 'flowagg-attack-'));
  const { ingest, ...rest } = config as { ingest?: Record<string, unknown> };
  const file = join(dataDir, 'flowagg.yaml');
  await writeFile(file, JSON.stringify({
    ...rest,
    // The gRPC collector's default port is fixed (Antrea's 14739): off unless a test turns it on.
    ingest: { host: '127.0.0.1', port: 0, grpc: { enabled: false }, ...ingest },
    log: { backend: 'embedded', embedded: { dir: join(dataDir, 'log'), fsync: { policy: 'interval' } } },
    apiServer: { apiPort: 0, protocol: 'http' },
  }));
  const proc = spawnNice(['--import', 'tsx', join(ROOT, 'app/cli/main.ts'), 'ingest', '--config', file], { ...process.env, FLOWAGG_LOG_LEVEL: 'info' });
  let stderr = '';
  const started = new Promise<{ collectors: Target['ports']; http: number }>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`flowagg ingest exited (${code}) before it ran:\n${stderr}`)));
    createInterface({ input: proc.stderr! }).on('line', (line) => {
      stderr = (stderr + line + '\n').slice(-20_000);
      if (!line.includes('"collectors"') || !line.includes('"http"')) return;
      const entry = JSON.parse(line) as { collectors: Target['ports']; http: number };
      resolve(entry);
    });
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const { collectors, http } = await started;
  const get = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${http}${path}`);
    return res.text();
  };
  let stopped = false;
  const target: Target = {
    ports: collectors,
    http,
    dataDir,
    recordMetrics: async () => JSON.parse(await get('/recordmetrics')) as Record<string, number>,
    metrics: () => get('/metrics'),
    peakRss: async () => Number(/^flowagg_process_peak_resident_memory_bytes (\d+)$/m.exec(await get('/metrics'))![1]),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      proc.kill('SIGTERM');
      await exited;
    },
  };
  t.after(async () => {
    if (process.env.FLOWAGG_ATTACK_DEBUG) process.stderr.write(`--- flowagg ingest stderr (tail) ---\n${stderr}\n`);
    proc.kill('SIGKILL');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  });
  return target;
}

/** Runs node at a higher priority when allowed: the figures are the collector's, not the machine's other load. */
function spawnNice(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn('nice', ['-n', '-10', process.execPath, ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
}

export interface ProbeResult {
  readonly count: number;
  readonly p99: number;
  readonly max: number;
  readonly failures: number;
  /** How much the machine slowed a busy process down meanwhile (1: not at all); see healthz-probe.ts. */
  readonly slowdown: number;
}

/** Times /healthz from a process of its own until stop(). */
export async function startProbe(t: TestContext, httpPort: number): Promise<{ stop(): Promise<ProbeResult> }> {
  const proc = spawnNice(['--import', 'tsx', join(import.meta.dirname, 'healthz-probe.ts'), String(httpPort), '20'], process.env);
  t.after(() => proc.kill('SIGKILL'));
  const lines: string[] = [];
  const rl = createInterface({ input: proc.stdout! });
  const waitLine = (match: (l: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const found = lines.find(match);
      if (found !== undefined) return resolve(found);
      rl.on('line', (l) => match(l) && resolve(l));
      proc.once('exit', () => reject(new Error('the /healthz probe exited early')));
    });
  rl.on('line', (l) => lines.push(l));
  await waitLine((l) => l === 'probing');
  return {
    stop: async () => {
      proc.stdin!.end('stop\n');
      return JSON.parse(await waitLine((l) => l.startsWith('{'))) as ProbeResult;
    },
  };
}

/** What a well-behaved exporter sent: softflowd's own count, and the records the traffic makes it export. */
export interface GoodExport {
  readonly sendFailures: number;
  readonly recordsExported: number;
  readonly expected: readonly ExpectedRecord[];
}

/** Several exports by the same exporter, as one. */
export function together(...runs: GoodExport[]): GoodExport {
  return {
    sendFailures: runs.reduce((n, r) => n + r.sendFailures, 0),
    recordsExported: runs.reduce((n, r) => n + r.recordsExported, 0),
    expected: runs.flatMap((r) => r.expected),
  };
}

/** A well-behaved exporter: softflowd over generated traffic, from 127.0.0.1 (IPFIX, or NetFlow v9 or v5 with `version`). */
export async function softflowd(port: number, transport: 'udp' | 'tcp', conversations = 200, seed = 23, version: SoftflowdVersion = 10): Promise<GoodExport> {
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-attack-softflowd-'));
  try {
    const traffic = renderTraffic(conversationMix({ count: conversations, seed }));
    const pcapPath = await writeTrafficPcap(traffic, dir);
    const run = await runSoftflowd({ pcapPath, collector: { address: '127.0.0.1', port }, transport, bidirectional: false, timeFormat: 'milli', version });
    return { sendFailures: run.stats.sendFailures, recordsExported: run.stats.recordsExported, expected: expectedExport(traffic, { bidirectional: false, timeFormat: 'milli', version }) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface Outcome {
  readonly probe: ProbeResult;
  readonly peakRss: number;
  readonly recordMetrics: Record<string, number>;
  readonly metrics: string;
  /** Every FlowRecord in flows.raw. */
  readonly records: readonly FlowRecord[];
}

/**
 * Stops the probe and the collector and reads what it wrote. Waits first (bounded) until every record the
 * collector received has reached the log, so that the count below is not cut short by a slow disk.
 */
export async function finish(target: Target, probe: { stop(): Promise<ProbeResult> }): Promise<Outcome> {
  for (let i = 0; i < 600; i++) {
    const m = await target.recordMetrics();
    if (m.numRecordsWritten! + m.numRecordsDropped! >= m.numRecordsReceived!) break;
    await sleep(50);
  }
  const result = await probe.stop();
  const peakRss = await target.peakRss();
  const recordMetrics = await target.recordMetrics();
  const metrics = await target.metrics();
  await target.stop();
  const log = await openEmbeddedLog({ dir: join(target.dataDir, 'log') });
  try {
    const records = (await readFlowRecords(log)).map((r) => r.record);
    return { probe: result, peakRss, recordMetrics, metrics, records };
  } finally {
    await log.close();
  }
}

/** The checks every attack test makes: the good exporter's records all arrived; /healthz stayed fast; RSS bounded. */
export function assertUnharmed(outcome: Outcome, good: GoodExport, transport: Transport, rssLimitMiB: number): void {
  const { probe, peakRss, records } = outcome;
  if (process.env.FLOWAGG_ATTACK_DEBUG) {
    const lines = outcome.metrics.split('\n').filter((l) => /eventloop_lag_(max|p99)_seconds |gc_duration_seconds_(sum|count)|cpu_seconds_total |heap_size|external_memory|resident_memory|heap_space_size_used/.test(l));
    process.stderr.write(`probe ${JSON.stringify(probe)} peak RSS ${(peakRss / MIB).toFixed(0)} MiB ${JSON.stringify(outcome.recordMetrics)}\n${lines.join('\n')}\n`);
  }
  const mine = records.filter((r) => r.exporterAddress === '127.0.0.1' && r.transport === transport);
  assert.equal(good.sendFailures, 0);
  assert.equal(mine.length, good.recordsExported, `softflowd exported ${good.recordsExported} records; flows.raw has ${mine.length} of them`);
  assert.deepEqual(sortRecords(mine.map(softflowdView)), sortRecords(good.expected));
  assert.ok(probe.count > 20, `the probe took ${probe.count} samples`);
  assert.equal(probe.failures, 0, '/healthz always answered');
  // The bound is for a machine with a core to spare; where other work competes for the CPUs, the collector's own
  // work takes longer in wall time by the slowdown the probe measured, and the bound with it.
  const bound = HEALTHZ_P99_MS * Math.max(1, probe.slowdown);
  assert.ok(probe.p99 < bound, `/healthz p99 ${probe.p99.toFixed(1)} ms (max ${probe.max.toFixed(1)} ms) over ${probe.count} samples; bound ${bound.toFixed(0)} ms (machine slowdown ${probe.slowdown.toFixed(2)})`);
  assert.ok(peakRss < rssLimitMiB * MIB, `peak RSS ${(peakRss / MIB).toFixed(0)} MiB, bound ${rssLimitMiB} MiB`);
}

/** The value of a Prometheus sample, summed over the series whose labels include all of `labels`. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== '{' && line[name.length] !== ' ')) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

// ---- the attacker's side ----

/** A TCP connection from `localAddress` (127.0.0.2 and up: not the good exporter's address). */
export async function tcpFrom(localAddress: string, port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('close', () => reject(new Error('connection closed before it opened')));
  });
  return socket;
}

/** Writes and waits for the socket to take it (the kernel's window is the rate bound). */
export async function writeAll(socket: Socket, data: Buffer): Promise<void> {
  if (!socket.write(data)) await new Promise<void>((resolve) => socket.once('drain', resolve).once('close', resolve));
}

export async function udpFrom(localAddress: string, localPort = 0): Promise<UdpSocket & { sendTo(port: number, data: Buffer): Promise<void> }> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind({ address: localAddress, port: localPort }, resolve));
  return Object.assign(socket, {
    sendTo: (port: number, data: Buffer) => new Promise<void>((resolve, reject) => socket.send(data, port, '127.0.0.1', (err) => (err ? reject(err) : resolve()))),
  });
}

/** Runs `step(i)` for i < count, at most `perSecond` a second. */
export async function paced(count: number, perSecond: number, step: (i: number) => Promise<void> | void): Promise<void> {
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    await step(i);
    const due = start + ((i + 1) * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
  }
}
