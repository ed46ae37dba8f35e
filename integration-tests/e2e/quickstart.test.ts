// Issue 12's end-to-end test: the quick start as a person runs it. In an empty directory, `flowagg run`
// (what `npm start` runs: the embedded log under ./data, ingest, the processor in Aggregate mode, the
// flow log at data/flows.log), then `flowagg simulate` for 10 s against it. The flow log holds correlated
// records whose per-Node delta sums equal, flow by flow, what the simulator reports it sent. flowagg run
// is stopped with SIGTERM while the processor still holds flows it has not exported, and started again:
// nothing is lost and nothing is written twice.
//
// Only what a test must not take from the defaults is set, through FLOWAGG_CFG_ variables: free ports
// instead of 4739, 2055, 14739 and 10348, no Kubernetes API, and flow record timeouts of seconds instead of
// Antrea's 60 s and 90 s, so that every flow has been exported within the test's bounds.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { untilHolds } from '../../lib/testing/until.js';
import { readLogApi, remoteAdmin } from '../../lib/log/admin-api.js';
import { DELTA_COUNTERS, type DeltaCounter } from '../../simulate/counters.js';
import type { FlowSums } from '../../simulate/ledger.js';
import type { SimulationReport } from '../../simulate/report.js';
import { type Line, lineTuple, readFlowLog, tupleKey } from '../harness/flow-log.js';
import { EPHEMERAL_RUN_ENV, metricLines, recordMetrics, type Run, startRun as startFlowaggRun, stopRun } from '../harness/flowagg-run.js';
import { runTool } from '../harness/tools.js';

const CLI = join(import.meta.dirname, '../../bin/flowagg.js');
const SIDES = ['FromSourceNode', 'FromDestinationNode'] as const;
const isText = (v: unknown) => typeof v === 'string' && v !== '';

/** Every stage on a worker thread of its own (auto starts none on CI's two cores): the same totals, through the same SIGTERM. */
const ON_THREADS = { FLOWAGG_CFG_INGEST_THREAD: 'true', FLOWAGG_CFG_PROCESSOR_THREADS: '2', FLOWAGG_CFG_EXPORTERS_THREADS: 'true' };

/** Per flow tuple, each side's sums of the four delta counters. */
type SideSums = Record<(typeof SIDES)[number], Record<DeltaCounter, number>>;
const emptySide = () => Object.fromEntries(DELTA_COUNTERS.map((c) => [c, 0])) as Record<DeltaCounter, number>;

/**
 * A FROM_EXTERNAL flow of which only the Pod's Node sent records (the run ended before the ingress Node's
 * first): its records carry the tuple after SNAT, which the report does not give, so the flow log has it
 * under that tuple, uncorrelated.
 */
const postSnatOnly = (f: FlowSums) => f.kind === 'fromExternal' && f.source === undefined;

/** What the flow log should hold: a flow one Node reports fills both sides from it, a correlated flow each side from its Node. */
function expected(flows: readonly FlowSums[]): Map<string, SideSums> {
  const out = new Map<string, SideSums>();
  for (const f of flows.filter((x) => !postSnatOnly(x))) {
    const pick = (s: FlowSums['source']) => Object.fromEntries(DELTA_COUNTERS.map((c) => [c, s?.[c] ?? 0])) as Record<DeltaCounter, number>;
    const only = f.source ?? f.destination;
    const sums = f.reporters === 1 ? { FromSourceNode: pick(only), FromDestinationNode: pick(only) } : { FromSourceNode: pick(f.source), FromDestinationNode: pick(f.destination) };
    const key = tupleKey(f.sourceAddress, f.destinationAddress, f.protocol, f.sourcePort, f.destinationPort);
    assert.ok(!out.has(key), `flow ${f.flow}: its tuple is another flow's`);
    out.set(key, sums);
  }
  return out;
}

function logged(lines: readonly Line[]): Map<string, SideSums> {
  const out = new Map<string, SideSums>();
  for (const l of lines) {
    const key = lineTuple(l);
    let s = out.get(key);
    if (s === undefined) out.set(key, (s = { FromSourceNode: emptySide(), FromDestinationNode: emptySide() }));
    for (const side of SIDES) for (const c of DELTA_COUNTERS) s[side][c] += Number(l[`${c}${side}`] ?? 0);
  }
  return out;
}

const total = (m: Map<string, SideSums>) => {
  let n = 0;
  for (const s of m.values()) for (const side of SIDES) for (const c of DELTA_COUNTERS) n += s[side][c];
  return n;
};

for (const [where, threads] of [['', {}], [', every stage on a thread', ON_THREADS]] as const) {
  test(`quick start${where}: flowagg run, flowagg simulate 10 s; the flow log holds every flow with the sums sent, through a SIGTERM and a restart`, (t) => quickStart(t, threads));
}

async function quickStart(t: TestContext, threads: Record<string, string>): Promise<void> {
  const startRun = (dir: string): Promise<Run> => startFlowaggRun(dir, { env: { ...EPHEMERAL_RUN_ENV, ...threads } });
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-quickstart-'));
  let run = await startRun(dir);
  t.after(() => { if (run.child.process.exitCode === null) run.child.process.kill('SIGKILL'); });

  // Flows of four records a second apart from 6 Nodes: a few generations of flows of every kind in 10 s.
  const sim = await runTool(process.execPath, [CLI, 'simulate', '--target', `127.0.0.1:${run.tcpPort}`, '--duration', '10s', '--flows', '400', '--export-interval', '1s', '--records-per-flow', '4', '--per-flow', '-q', '-o', 'json'], { cwd: dir, timeoutMs: 180_000, allowFailure: true, signal: t.signal });
  assert.equal(sim.exitCode, 0, `flowagg simulate exits 0; stderr:\n${sim.stderr.slice(-2000)}`);
  const report = JSON.parse(sim.stdout) as SimulationReport;
  assert.ok(report.records.sent > 3000, `${report.records.sent} records sent`);
  assert.equal(report.records.lost, 0);
  const want = expected(report.flowSums!);

  // Stopped once ingest has written every record sent, while the last seconds' deltas still wait in the
  // processor for the flows' next expiry: that needs event time to move on, and with no input it moves
  // only 5 s after the last record (the idle advance). They are in the processor's changelog on disk.
  await untilHolds('ingest to write every record sent', async () => (await recordMetrics(run)).numRecordsWritten, (written) => written >= report.records.sent, { timeoutMs: 60_000, intervalMs: 100 });
  assert.ok(total(logged(readFlowLog(dir))) < total(want), 'not everything is in the flow log yet when flowagg run is stopped');
  await stopRun(run);
  const atStop = readFlowLog(dir).length;

  run = await startRun(dir);
  // Done when the flow log holds as much as was sent, the processor holds no flow (each was exported for
  // the last time: nothing more can come) and the flow log exporter has read everything the processor
  // wrote: at most the marker of the processor's last transaction left on each partition of
  // flows.processed, which the embedded log's lag counts. A line lost keeps it from finishing; one
  // written twice is seen below.
  const admin = remoteAdmin(readLogApi(join(dir, 'data', 'log'))!);
  const progress = async () => ({
    counted: total(logged(readFlowLog(dir))), of: total(want), metrics: await recordMetrics(run),
    flowLogLag: (await admin.fetchGroupLag('flowagg-export-flowlog')).map((p) => p.lag), processor: await metricLines(run, 'flowagg_processor_'),
  });
  await untilHolds('the restarted flowagg run to finish', progress, (p) => p.counted >= p.of && p.metrics.numFlows === 0 && p.flowLogLag.every((n) => n <= 1), { timeoutMs: 120_000, intervalMs: 250 });
  const lines = readFlowLog(dir);
  const got = logged(lines);
  await stopRun(run);

  assert.ok(lines.length > atStop, `the restarted flowagg run exported what was held (${atStop} lines at SIGTERM, ${lines.length} at the end)`);
  const snatOnly = report.flowSums!.filter(postSnatOnly);
  const others = [...got].filter(([key]) => !want.has(key)).map(([, sums]) => sums);
  assert.equal(got.size - others.length, want.size, 'the flow log holds every flow sent');
  assert.equal(others.length, snatOnly.length, `no other flow than the ${snatOnly.length} FROM_EXTERNAL flows seen only after SNAT`);
  for (const c of DELTA_COUNTERS) {
    assert.equal(others.reduce((a, x) => a + x.FromDestinationNode[c], 0), snatOnly.reduce((a, f) => a + f.destination![c], 0), `${c} of the FROM_EXTERNAL flows seen only after SNAT`);
  }
  const flowOf = new Map(report.flowSums!.map((f) => [tupleKey(f.sourceAddress, f.destinationAddress, f.protocol, f.sourcePort, f.destinationPort), f]));
  const wrong = [...want].filter(([key, sums]) => !isDeepStrictEqual(got.get(key), sums));
  assert.deepEqual(
    wrong.slice(0, 5).map(([key, sums]) => ({ flow: flowOf.get(key), expected: sums, logged: got.get(key) })),
    [],
    `${wrong.length} of ${want.size} flows differ from what the simulator sent (kinds: ${wrong.map(([key]) => flowOf.get(key)!.kind).join(' ')})`,
  );
  // The totals: a flow one Node reports fills both sides from it, so it counts once.
  const single = new Set(report.flowSums!.filter((f) => f.reporters === 1).map((f) => tupleKey(f.sourceAddress, f.destinationAddress, f.protocol, f.sourcePort, f.destinationPort)));
  for (const c of DELTA_COUNTERS) {
    const inLog = lines.reduce((a, l) => a + Number(l[`${c}FromSourceNode`] ?? 0) + (single.has(lineTuple(l)) ? 0 : Number(l[`${c}FromDestinationNode`] ?? 0)), 0);
    assert.equal(inLog, report.totals[c], `${c}: the flow log's total is what the simulator sent`);
  }
  // Correlated: every two-Node flow with both halves sent has lines naming both Pods, one flow per tuple.
  const twoNode = report.flowSums!.filter((f) => f.reporters === 2 && f.source !== undefined && f.destination !== undefined && f.kind === 'interNode');
  assert.ok(twoNode.length > 50, `${twoNode.length} inter-Node flows with both halves sent`);
  for (const f of twoNode) {
    const key = tupleKey(f.sourceAddress, f.destinationAddress, f.protocol, f.sourcePort, f.destinationPort);
    assert.ok(lines.some((l) => lineTuple(l) === key && isText(l.sourcePodName) && isText(l.destinationPodName)), `flow ${f.flow}: a correlated line with both Pods`);
  }
}
