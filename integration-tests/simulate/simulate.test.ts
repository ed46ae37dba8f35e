// `flowagg simulate` against a running ingest, over each transport: IPFIX over UDP, TCP and TLS with the
// client certificate ingest issued, and gRPC with mutual TLS. Every record the simulator reports sent is
// in flows.raw, from its Node (observation domain, and its own loopback address over IPFIX), with the
// sums the simulator reports per Node and per flow.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ingestConfig } from '../../ingest/config.js';
import { createIngest, type Ingest } from '../../ingest/index.js';
import { readFlowRecords } from '../../ingest/testing/fakes.js';
import { parseIpv4Into, parseIpv6Into, formatIpv4, formatIpv6 } from '../../lib/ipfix/text.js';
import { openEmbeddedLog } from '../../lib/log/embedded/index.js';
import type { MessageLog } from '../../lib/log/types.js';
import { untilHolds } from '../../lib/testing/until.js';
import { DELTA_COUNTERS } from '../../simulate/counters.js';
import type { SimulationReport } from '../../simulate/report.js';
import type { FlowRecord } from '../../schemas/flow-record.js';
import { runTool } from '../harness/tools.js';

const CLI = join(import.meta.dirname, '../../bin/flowagg.js');

async function startIngest(root: string, log: MessageLog, ports: Partial<Record<'udp' | 'tcp' | 'tls' | 'grpc', number>> = {}): Promise<Ingest> {
  const config = ingestConfig.parse({
    aggregatorTransportProtocol: ['udp', 'tcp', 'tls'],
    ingest: { host: '127.0.0.1', port: ports.tcp ?? 0, tlsPort: ports.tls ?? 0, grpc: { port: ports.grpc ?? 0 }, tls: { mode: 'directory', dir: join(root, 'tls') } },
  });
  const ingest = createIngest(config, { log });
  await ingest.start();
  return ingest;
}

/** Runs `flowagg simulate`; its JSON report. */
async function simulate(args: string[], signal: AbortSignal): Promise<{ report: SimulationReport; stderr: string; exitCode: number }> {
  const run = await runTool(process.execPath, [CLI, 'simulate', '-o', 'json', '--per-flow', ...args], { timeoutMs: 180_000, signal, allowFailure: true });
  assert.ok(run.stdout.startsWith('{'), `a JSON report; stderr:\n${run.stderr.slice(-2000)}`);
  return { report: JSON.parse(run.stdout) as SimulationReport, stderr: run.stderr, exitCode: run.exitCode };
}

/** Resolves once ingest wrote `n` records to the log; on timeout says how many it wrote. */
async function waitWritten(ingest: Ingest, n: number): Promise<void> {
  await untilHolds(`ingest to write ${n} records`, () => ingest.stats().written, (written) => written >= n, { timeoutMs: 120_000, intervalMs: 50 });
}

const text = (b: Buffer | null) => (b === null ? '' : b.length === 4 ? formatIpv4(b, 0) : formatIpv6(b, 0));
/** An address as its bytes in hex, whatever way the text spells it. */
function addressKey(address: string): string {
  const b = Buffer.alloc(address.includes(':') ? 16 : 4);
  assert.ok(address.includes(':') ? parseIpv6Into(address, b, 0) : parseIpv4Into(address, b, 0), address);
  return b.toString('hex');
}
const tupleKey = (odid: number, src: string, dst: string, srcPort: number, dstPort: number) => `${odid}|${addressKey(src)}|${addressKey(dst)}|${srcPort}|${dstPort}`;

/** flows.raw against the report of one run: per Node, and per flow half where the record carries the flow's own tuple. */
function compare(report: SimulationReport, rows: FlowRecord[]): void {
  assert.equal(rows.length, report.records.sent, `${report.transport}: flows.raw holds every record sent, and no other`);
  for (const node of report.nodes) {
    const mine = rows.filter((r) => r.observationDomainId === node.observationDomainId);
    assert.equal(mine.length, node.records, `${report.transport} ${node.name}: records`);
    for (const c of DELTA_COUNTERS) assert.equal(mine.reduce((a, r) => a + (r[c] as number), 0), node[c], `${report.transport} ${node.name}: ${c}`);
    const from = new Set(mine.map((r) => r.exporterAddress));
    assert.deepEqual(from, new Set([node.sourceAddress ?? '127.0.0.1']), `${report.transport} ${node.name}: the exporter address`);
  }
  const byTuple = new Map<string, number[]>();
  for (const r of rows) {
    const key = tupleKey(r.observationDomainId, text(r.sourceIPv4Address ?? r.sourceIPv6Address), text(r.destinationIPv4Address ?? r.destinationIPv6Address), r.sourceTransportPort as number, r.destinationTransportPort as number);
    const sums = byTuple.get(key) ?? [0, 0, 0, 0, 0];
    sums[0]!++;
    DELTA_COUNTERS.forEach((c, i) => (sums[i + 1]! += r[c] as number));
    byTuple.set(key, sums);
  }
  const odid = new Map(report.nodes.map((n) => [n.name, n.observationDomainId]));
  let halves = 0;
  for (const f of report.flowSums!) {
    for (const half of ['source', 'destination'] as const) {
      const s = f[half];
      // The destination Node of a FROM_EXTERNAL flow reports the tuple after SNAT, not the flow's own.
      if (s === undefined || (half === 'destination' && f.kind === 'fromExternal')) continue;
      const got = byTuple.get(tupleKey(odid.get(s.node)!, f.sourceAddress, f.destinationAddress, f.sourcePort, f.destinationPort));
      assert.deepEqual(got, [s.records, ...DELTA_COUNTERS.map((c) => s[c])], `${report.transport}: flow ${f.flow} (${f.kind}), ${half} half from ${s.node}`);
      halves++;
    }
  }
  assert.ok(halves > report.flowSums!.length, `${halves} flow halves compared`);
}

test('flowagg simulate over UDP, TCP, TLS and gRPC: every record it reports sent is in flows.raw with its sums', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'flowagg-simulate-'));
  const log = await openEmbeddedLog({ dir: join(root, 'log'), fsync: { policy: 'interval' } });
  t.after(() => log.close());
  const ingest = await startIngest(root, log);
  t.after(() => ingest.stop());
  const ports = ingest.ports;
  // Flows of three records a second apart: several generations of flows within the run.
  const common = ['--duration', '4s', '--nodes', '4', '--flows', '150', '--export-interval', '1s', '--records-per-flow', '3', '--ipv6-share', '0.25'];
  const runs = await Promise.all([
    simulate([...common, '--transport', 'udp', '--target', `127.0.0.1:${ports.udp}`, '--seed', '1'], t.signal),
    simulate([...common, '--transport', 'tcp', '--target', `127.0.0.1:${ports.tcp}`, '--seed', '2'], t.signal),
    simulate([...common, '--transport', 'tls', '--target', `127.0.0.1:${ports.tls}`, '--tls-dir', join(root, 'tls'), '--seed', '3'], t.signal),
    simulate([...common, '--transport', 'grpc', '--target', `127.0.0.1:${ports.grpc}`, '--tls-dir', join(root, 'tls'), '--seed', '4'], t.signal),
  ]);
  for (const { report, exitCode, stderr } of runs) {
    assert.equal(exitCode, 0, `${report.transport}: exit 0; stderr:\n${stderr.slice(-1500)}`);
    assert.ok(report.records.sent > 300, `${report.transport}: ${report.records.sent} records sent`);
    assert.equal(report.records.lost, 0);
    assert.equal(new Set(report.nodes.map((n) => n.sourceAddress)).size, 4, `${report.transport}: every Node from an address of its own`);
    assert.match(stderr, new RegExp(`^simulate: 4 Nodes connected over ${report.transport} to 127\\.0\\.0\\.1:\\d+`, 'm'));
    assert.match(stderr, /^simulate \ds, [\d,]+ records sent, [\d,]+\/s \(target [\d,]+\/s\), 4\/4 Nodes connected/m, 'a progress line every second');
  }
  await waitWritten(ingest, runs.reduce((a, r) => a + r.report.records.sent, 0));
  const rows = (await readFlowRecords(log)).map((r) => r.record);
  for (const { report } of runs) compare(report, rows.filter((r) => r.transport === report.transport));
});

test('flowagg simulate over TCP reconnects when the collector comes back; what flows.raw holds was reported sent', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'flowagg-simulate-restart-'));
  const log = await openEmbeddedLog({ dir: join(root, 'log'), fsync: { policy: 'interval' } });
  t.after(() => log.close());
  const first = await startIngest(root, log);
  const port = first.ports.tcp!;
  const run = simulate(['--duration', '12s', '--nodes', '3', '--flows', '100', '--export-interval', '1s', '--target', `127.0.0.1:${port}`], t.signal);
  // Down once records flow, for two seconds, then back on the same port.
  await waitWritten(first, 100);
  await first.stop();
  await sleep(2000);
  const second = await startIngest(root, log, { tcp: port });
  const back = Date.now();
  const { report, exitCode, stderr } = await run;
  await second.stop();
  assert.equal(exitCode, report.records.lost === 0 ? 0 : 1, `exit 0 unless records were lost; stderr:\n${stderr.slice(-1500)}`);
  assert.ok(report.nodes.every((n) => n.connects >= 2 && n.connected), 'every Node reconnected and was connected at the end');
  assert.ok(report.records.skipped.unavailable > 0, 'records fell due while the collector was away');
  const rows = (await readFlowRecords(log)).map((r) => r.record);
  for (const node of report.nodes) {
    const mine = rows.filter((r) => r.observationDomainId === node.observationDomainId).length;
    // Records the kernel took just before the collector went may not have arrived; none arrived unreported.
    assert.ok(mine <= node.records + node.lost && mine >= node.records - 200, `${node.name}: ${mine} in flows.raw, ${node.records} reported sent, ${node.lost} lost`);
  }
  const after = rows.filter((r) => r.receiveTime >= back).length;
  assert.ok(after > 300, `${after} records arrived after the collector came back`);
});
