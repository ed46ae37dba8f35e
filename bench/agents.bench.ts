// A large cluster's Agents over gRPC (issue 18, §3): `flowagg run` (the quick start, its own process)
// and `flowagg simulate --transport grpc` (another process) with AGENTS Nodes, each from an address of its
// own, exporting every flow every 5 s as Antrea's Agents do. Figures: the Agents connected at once (all of
// them, or the run says which not), records lost (none), flowagg's resident memory per connection (from
// the Agents connected to the first records) and per flow held (at the end), and its CPU per record.
// FLOWAGG_BENCH_AGENTS, _FLOWS and _SECONDS change the shape.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EPHEMERAL_RUN_ENV, metricLines, recordMetrics, type Run, startRun, stopRun } from '../integration-tests/harness/flowagg-run.js';
import { untilHolds } from '../lib/testing/until.js';
import { startSimulator } from './simulator.js';
import type { Benchmark } from './types.js';

const AGENTS = Number(process.env.FLOWAGG_BENCH_AGENTS ?? 5000);
const FLOWS = Number(process.env.FLOWAGG_BENCH_FLOWS ?? 20_000);
const SECONDS = Number(process.env.FLOWAGG_BENCH_SECONDS ?? 60);

async function gauge(run: Run, name: string): Promise<number> {
  const line = (await metricLines(run, name)).find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.split(' ')[1]);
}

const bench: Benchmark = async (log) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-agents-bench-'));
  // Flow log off: what is measured is collection and aggregation for this many Agents, not a file's JSON.
  const run = await startRun(dir, { env: { ...EPHEMERAL_RUN_ENV, FLOWAGG_CFG_FLOWLOGGER_ENABLE: 'false', FLOWAGG_CFG_INGEST_TCP_MAXCONNECTIONS: String(Math.max(8192, AGENTS + 1000)) } });
  try {
    const idle = await gauge(run, 'flowagg_process_resident_memory_bytes');
    const cpu0 = await gauge(run, 'flowagg_process_cpu_seconds_total');
    const args = [
      '--transport', 'grpc', '--target', `127.0.0.1:${run.collectors.grpc}`, '--tls-dir', join(dir, 'data', 'tls'),
      '--nodes', String(AGENTS), '--flows', String(FLOWS), '--export-interval', '5s', '--duration', `${SECONDS}s`, '--connect-timeout', '180s',
    ];
    const sim = startSimulator(args);
    const connected = await untilHolds('every Agent connected', () => gauge(run, 'flowagg_ingest_grpc_connections'), (n) => n >= AGENTS, { timeoutMs: 200_000, intervalMs: 500 });
    const withConnections = await gauge(run, 'flowagg_process_resident_memory_bytes');
    log(`${connected} Agents connected; RSS ${(idle / 2 ** 20).toFixed(0)} MiB idle, ${(withConnections / 2 ** 20).toFixed(0)} MiB connected`);
    const report = await sim.report;
    const written = await untilHolds('flowagg to write every record sent', async () => (await recordMetrics(run)).numRecordsWritten, (n) => n >= report.records.sent, { timeoutMs: 120_000, intervalMs: 500 });
    const metrics = await recordMetrics(run);
    const peak = await gauge(run, 'flowagg_process_peak_resident_memory_bytes');
    const end = await gauge(run, 'flowagg_process_resident_memory_bytes');
    const cpu = (await gauge(run, 'flowagg_process_cpu_seconds_total')) - cpu0;
    const load = `load average ${loadavg()[0]!.toFixed(1)}`;
    const shape = `${AGENTS} Agents over gRPC (one Flow per message, each Agent from its own 127.1.x.y), ${FLOWS} flows every 5 s for ${SECONDS} s; flowagg run, flow log off`;
    log(`${report.records.sent} sent, ${report.records.lost} lost, ${written} written; ${metrics.numFlows} flows held; ${cpu.toFixed(1)} CPU-s; ${load}`);
    return [
      { name: 'gRPC Agents connected at once', value: connected, unit: 'Agents', target: AGENTS, note: shape },
      { name: 'gRPC Agents: records lost', value: report.records.sent - Math.min(written, report.records.sent) + report.records.lost, unit: 'records', note: `${report.records.sent} sent, ${written} written to flows.raw` },
      { name: 'gRPC Agents: resident memory per connection', value: (withConnections - idle) / connected, unit: 'bytes', note: `RSS connected minus idle, over the connections; ${load}` },
      { name: 'gRPC Agents: resident memory per flow held', value: (end - withConnections) / Math.max(1, metrics.numFlows), unit: 'bytes', note: `${metrics.numFlows} flows held at the end; peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB` },
      { name: 'gRPC Agents: flowagg CPU per record', value: (cpu * 1e6) / Math.max(1, written), unit: 'µs', note: `whole flowagg run process, connecting included; ${load}` },
    ];
  } finally {
    await stopRun(run);
    rmSync(dir, { recursive: true, force: true });
  }
};

export default bench;
