// gRPC collector throughput: Antrea-like Agents (the grpc-go client of integration-tests/go/agent, in its own
// process) send Flows over mutual TLS into a running ingest that writes flows.raw to the embedded log (fsync
// per group commit). One Flow per ExportRequest, as Agents send them. A figure is flows acknowledged by the
// log per second, from the agent's start to the last flow acknowledged; flows per CPU-second of the ingest
// process are reported too, since this machine is shared. Every run checks that nothing was lost.
// Memory per connection: heap and RSS of ingest while 200 connections each hold an open Export stream.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestConfig } from '../ingest/config.js';
import { agentFlow, encodeFlow, lengthDelimited } from '../ingest/grpc/testing/flows.js';
import { createIngest, type Ingest } from '../ingest/index.js';
import { goProgram } from '../integration-tests/harness/go.js';
import { runTool } from '../integration-tests/harness/tools.js';
import { logConfigSchema } from '../lib/log/config.js';
import { openLog } from '../lib/log/index.js';
import { until } from '../lib/testing/until.js';
import type { BenchResult, Benchmark } from './types.js';
import { type FloorServer, startGrpcJsFloor, startHttp2Floor } from './grpc/http2-floor.js';

interface Fixture {
  readonly ingest: Ingest;
  readonly agentArgs: string[];
  close(): Promise<void>;
}

/** The grpc-go agent's arguments for a server on `port` with the certificates of dir/tls, sending dir/flows.bin. */
function agentArgs(dir: string, port: number): string[] {
  const certDir = join(dir, 'tls');
  return ['-addr', `127.0.0.1:${port}`, '-ca', join(certDir, 'ca.crt'), '-cert', join(certDir, 'client.crt'), '-key', join(certDir, 'client.key'), '-flows', join(dir, 'flows.bin')];
}

async function fixture(dir: string, run: string): Promise<Fixture> {
  const log = await openLog(logConfigSchema.parse({ embedded: { dir: join(dir, `log-${run}`) } }));
  const certDir = join(dir, 'tls');
  const config = ingestConfig.parse({
    aggregatorTransportProtocol: 'none',
    ingest: { host: '127.0.0.1', port: 0, tcp: { maxConnectionsPerSource: 1000 }, grpc: { port: 0, maxStreamsPerPeer: 1000, maxConnectionsPerPeer: 1000 }, tls: { mode: 'directory', dir: certDir } },
    log: { topics: { flowsRaw: `flows.raw.bench-${run}` } },
  });
  const ingest = createIngest(config, { log });
  await ingest.start();
  return { ingest, agentArgs: agentArgs(dir, ingest.ports.grpc!), close: async () => { await ingest.stop(); await log.close(); } };
}

/** Resolves once ingest wrote `n` records, or after 120 s: the caller judges the count. */
async function waitWritten(ingest: Ingest, n: number): Promise<void> {
  await until(`ingest to write ${n} records`, () => ingest.stats().written >= n, { timeoutMs: 120_000, intervalMs: 5 }).catch(() => {});
}

async function throughput(agent: string, dir: string, run: string, streams: number, total: number, log: (line: string) => void, batch = 1) {
  const f = await fixture(dir, run);
  try {
    const cpu = process.cpuUsage();
    const started = Date.now();
    const out = await runTool(agent, [...f.agentArgs, '-total', String(total), '-streams', String(streams), '-conns', String(streams), '-batch', String(batch), '-halfclose'], { timeoutMs: 600_000 });
    const outcome = JSON.parse(out.stdout.trim()) as { sent: number; code: string };
    await waitWritten(f.ingest, outcome.sent);
    const seconds = (Date.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const cpuSeconds = (used.user + used.system) / 1e6;
    const s = f.ingest.stats();
    if (outcome.code !== 'OK' || s.written !== total) throw new Error(`loss: ${total} to send, ${outcome.sent} sent (${outcome.code}), ${s.written} written`);
    log(`${streams} streams, ${batch} flows per message: ${total} flows in ${seconds.toFixed(2)} s (${cpuSeconds.toFixed(2)} CPU-s of ingest, load ${loadavg()[0]!.toFixed(1)})`);
    return { perSecond: total / seconds, perCpuSecond: total / cpuSeconds, load: loadavg()[0]!.toFixed(1) };
  } finally {
    await f.close();
  }
}

/** Messages per CPU-second of this process for a floor server (http2-floor.ts), one stream of one-Flow messages. */
async function floor(agent: string, dir: string, start: (certDir: string) => Promise<FloorServer>, total: number) {
  const server = await start(join(dir, 'tls'));
  try {
    const cpu = process.cpuUsage();
    const out = await runTool(agent, [...agentArgs(dir, server.port), '-total', String(total), '-streams', '1', '-conns', '1', '-batch', '1', '-halfclose'], { timeoutMs: 600_000 });
    const used = process.cpuUsage(cpu);
    const outcome = JSON.parse(out.stdout.trim()) as { sent: number; code: string };
    if (outcome.code !== 'OK' || server.messages() !== total) throw new Error(`floor: ${total} to send, ${outcome.sent} sent (${outcome.code}), ${server.messages()} counted`);
    return { perCpuSecond: total / ((used.user + used.system) / 1e6), load: loadavg()[0]!.toFixed(1) };
  } finally {
    await server.close();
  }
}

async function memoryPerConnection(agent: string, dir: string, connections: number, log: (line: string) => void) {
  const f = await fixture(dir, 'memory');
  const gc = (globalThis as { gc?: () => void }).gc;
  try {
    gc?.();
    const before = process.memoryUsage();
    const running = runTool(agent, [...f.agentArgs, '-total', String(connections), '-streams', String(connections), '-conns', String(connections), '-hold', '8s', '-halfclose'], { timeoutMs: 120_000 });
    // A wait that ends at its bound is reported below (the sessions open then).
    await until(`${connections} sessions open`, () => f.ingest.stats().streamSessions >= connections, { timeoutMs: 6000 }).catch(() => {});
    await new Promise((r) => setTimeout(r, 1000));
    gc?.();
    const during = process.memoryUsage();
    const open = f.ingest.stats().streamSessions;
    await running;
    const heap = (during.heapUsed - before.heapUsed) / open;
    const rss = (during.rss - before.rss) / open;
    log(`${open} connections with an open stream: heap +${((during.heapUsed - before.heapUsed) / 2 ** 20).toFixed(1)} MiB, RSS +${((during.rss - before.rss) / 2 ** 20).toFixed(1)} MiB`);
    return { heap, rss, open };
  } finally {
    await f.close();
  }
}

const bench: Benchmark = async (log) => {
  const results: BenchResult[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-bench-grpc-'));
  try {
    const agent = await goProgram('agent', { proto: true });
    writeFileSync(join(dir, 'flows.bin'), lengthDelimited(Array.from({ length: 1000 }, (_, i) => encodeFlow(agentFlow(i)))));
    await throughput(agent, dir, 'warmup', 1, 100_000, log);
    for (const streams of [1, 100]) {
      const r = await throughput(agent, dir, `s${streams}`, streams, 1_000_000, log);
      const what = streams === 1 ? 'one stream' : `${streams} streams on ${streams} connections`;
      results.push({
        name: `gRPC collector, ${what} → embedded log`, value: r.perSecond, unit: 'flows/s', target: 150_000,
        note: `one Flow per ExportRequest (as Agents send), mutual TLS, fsync per group commit; 1,000,000 sent and written; load average ${r.load}`,
      });
      results.push({ name: `gRPC collector, ${what}, per CPU-second`, value: r.perCpuSecond, unit: 'flows/CPU-s', note: `CPU time of the ingest process (the agent runs apart); load average ${r.load}` });
    }
    // What the per-message cost of grpc-js is: the same flows, 100 per ExportRequest.
    const batched = await throughput(agent, dir, 'batched', 1, 1_000_000, log, 100);
    results.push({ name: 'gRPC collector, one stream, 100 flows per ExportRequest, per CPU-second', value: batched.perCpuSecond, unit: 'flows/CPU-s', note: `not what Agents send: shows the per-message cost; load average ${batched.load}` });
    // What the transport alone costs per message, below the collector: grpc-js, and node:http2 without it.
    for (const [what, start] of [['grpc-js alone (messages as bytes, counted)', startGrpcJsFloor], ['node:http2 alone (length prefixes read, counted), no grpc-js', startHttp2Floor]] as const) {
      const r = await floor(agent, dir, start, 1_000_000);
      log(`floor, ${what}: ${Math.round(r.perCpuSecond)} messages per CPU-second`);
      results.push({ name: `gRPC floor, ${what}, one stream, per CPU-second`, value: r.perCpuSecond, unit: 'messages/CPU-s', note: `one-Flow ExportRequests over mutual TLS from the grpc-go agent, nothing decoded or logged; load average ${r.load}` });
    }
    const m = await memoryPerConnection(agent, dir, 200, log);
    results.push({ name: 'gRPC collector, heap per connection with an open stream', value: m.heap / 1024, unit: 'KiB', note: `${m.open} connections (TLS, HTTP/2 session, one stream), after a GC; RSS per connection ${m.rss > 0 ? `${(m.rss / 1024).toFixed(0)} KiB` : 'not measurable (RSS fell)'}; load average ${loadavg()[0]!.toFixed(1)}` });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
};

export default bench;
