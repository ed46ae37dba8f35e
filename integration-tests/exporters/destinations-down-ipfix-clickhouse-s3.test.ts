// Issue 17: a destination that is down never stops collection. `flowagg run` (a child process, as an
// operator runs it) starts with its IPFIX collector (TCP), ClickHouse and S3 (moto) all unreachable, for
// FLOWAGG_TEST_OUTAGE_SECONDS (15 s by default, to keep CI fast; the 60 s with
// FLOWAGG_TEST_OUTAGE_SECONDS=60), while `flowagg simulate` sends Agents' records. Meanwhile ingest
// accepts every record, the processor writes flows.processed, /readyz stays 200 with each exporter's
// "destination unreachable since …, retrying", and the metrics show the exporters' lag and the age of
// their oldest waiting record. Then the destinations come up, and each holds every record of
// flows.processed exactly once: per flow (5-tuple), the same number of rows and the same sums of every
// delta counter as the flow log, an exporter whose destination (a file) was never down.
//
// The second test reloads the configuration to an IPFIX collector address nothing listens on, and back:
// flowagg runs on, collects throughout, and the collector ends up with every record exactly once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { createClient } from '@clickhouse/client';
import { readLogApi, remoteAdmin } from '../../lib/log/admin-api.js';
import type { Admin } from '../../lib/log/types.js';
import { until } from '../../lib/testing/until.js';
import { S3_FIELDS } from '../../exporters/row/columns.js';
import { CollectedDecoder } from '../../exporters/ipfix/testing/exporter.js';
import { closedPort } from '../../exporters/testing/records.js';
import type { SimulationReport } from '../../simulate/report.js';
import { UNREACHABLE_SINCE } from '../../app/cli/testing/export-until.js';
import { clickHouseForTests } from '../harness/clickhouse.js';
import { startTcpCollector, type StreamCollector } from '../harness/collector.js';
import { type Line, readFlowLog, sumsByFlow } from '../harness/flow-log.js';
import { EPHEMERAL_RUN_ENV, metricLines, readyzOf, recordMetrics, type Run, startRun, stopRun } from '../harness/flowagg-run.js';
import { OutageProxy, outageMs } from '../harness/outage-proxy.js';
import { readBucketLines, s3ForTests, TEST_S3_CREDENTIALS } from '../harness/s3.js';
import { runTool } from '../harness/tools.js';

const CLI = join(import.meta.dirname, '../../bin/flowagg.js');
const { server: clickhouse, skip: noClickHouse } = clickHouseForTests();
const { endpoint: s3Endpoint, skip: noS3 } = s3ForTests();
const COUNTERS = ['packetDeltaCount', 'octetDeltaCount', 'reversePacketDeltaCount', 'reverseOctetDeltaCount', 'packetTotalCount', 'octetTotalCount'];
const ENV = {
  ...EPHEMERAL_RUN_ENV,
  AWS_ACCESS_KEY_ID: TEST_S3_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: TEST_S3_CREDENTIALS.secretAccessKey,
};

/** flowagg run's configuration: collection over TCP, the flow log as the reference, and `destinations`. */
function configYaml(destinations: string): string {
  return `aggregatorTransportProtocol: TCP\nflowLogger:\n  enable: true\n  path: data/flows.log\n  recordFormat: JSON\n${destinations}`;
}

function flowCollectorYaml(port: number): string {
  return `flowCollector:\n  enable: true\n  address: "127.0.0.1:${port}:tcp"\n  connectTimeout: 2s\n`;
}

async function simulate(run: Run, dir: string, seconds: number, signal: AbortSignal): Promise<SimulationReport> {
  const sim = await runTool(process.execPath, [CLI, 'simulate', '--target', `127.0.0.1:${run.tcpPort}`, '--duration', `${seconds}s`, '--flows', '300', '--export-interval', '1s', '--records-per-flow', '4', '-q', '-o', 'json'], { cwd: dir, timeoutMs: 120_000, allowFailure: true, signal });
  assert.equal(sim.exitCode, 0, `flowagg simulate exits 0; stderr:\n${sim.stderr.slice(-2000)}`);
  const report = JSON.parse(sim.stdout) as SimulationReport;
  assert.equal(report.records.lost, 0);
  return report;
}

const logAdmin = (dir: string): Admin => remoteAdmin(readLogApi(join(dir, 'data', 'log'))!);

/** Records of flows.processed so far (log end offsets; the processor's transaction markers among them). */
async function processedOffsets(admin: Admin): Promise<number> {
  return (await admin.fetchTopicOffsets('flows.processed')).reduce((n, p) => n + p.high, 0);
}

/** Once the processor holds no flow and each group read everything but the last transaction marker of each partition. */
async function drained(run: Run, admin: Admin, groups: readonly string[]): Promise<boolean> {
  if ((await recordMetrics(run)).numFlows !== 0) return false;
  for (const g of groups) if (!(await admin.fetchGroupLag(g)).every((p) => p.lag <= 1)) return false;
  return true;
}

/** A metric's value for one exporter, from /metrics (summed over its other labels). */
async function exporterMetric(run: Run, name: string, exporter: string): Promise<number> {
  const lines = await metricLines(run, `${name}{`);
  return lines.filter((l) => l.includes(`exporter="${exporter}"`)).reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

/** The child's log lines (JSON) whose message starts with `prefix`, by exporter. */
function logged(run: Run, prefix: string): string[] {
  return run.child.stderr().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => typeof l.msg === 'string' && l.msg.startsWith(prefix)).map((l) => String(l.exporter)).sort();
}

/** What an IPFIX collector received, as flow log lines. */
function ipfixLines(decoders: readonly CollectedDecoder[]): Line[] {
  return decoders.flatMap((d) => (d.update(), d.records));
}

/** Each per-flow difference between a destination and the flow log, at most five, for the message. */
function differences(got: Map<string, number[]>, want: Map<string, number[]>): string[] {
  const keys = new Set([...got.keys(), ...want.keys()]);
  return [...keys].filter((k) => JSON.stringify(got.get(k)) !== JSON.stringify(want.get(k))).slice(0, 5).map((k) => `${k}: ${JSON.stringify(got.get(k))} instead of ${JSON.stringify(want.get(k))}`);
}

test(`IPFIX collector, ClickHouse and S3 unreachable at start for ${outageMs() / 1000} s: flowagg run collects throughout, then each holds every record once`, { skip: noClickHouse || noS3, timeout: 600_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-destinations-down-'));
  const collectorPort = await closedPort();
  const chUrl = new URL(clickhouse!.url);
  const chProxy = await OutageProxy.start(chUrl.hostname, Number(chUrl.port), { down: true });
  const s3Url = new URL(s3Endpoint!);
  const s3Proxy = await OutageProxy.start(s3Url.hostname, Number(s3Url.port), { down: true });
  const database = `flowagg_down_${randomBytes(4).toString('hex')}`;
  const bucket = `flowagg-down-${randomBytes(4).toString('hex')}`;
  const s3 = new S3Client({ endpoint: s3Endpoint, region: 'us-west-2', forcePathStyle: true, credentials: TEST_S3_CREDENTIALS });
  await s3.send(new CreateBucketCommand({ Bucket: bucket, CreateBucketConfiguration: { LocationConstraint: 'us-west-2' } }));
  const ch = createClient({ url: clickhouse!.url, keep_alive: { enabled: false } });
  /** The collector, once it is up. */
  const collectors: StreamCollector[] = [];
  const file = join(dir, 'flowagg.yaml');
  writeFileSync(file, configYaml(
    flowCollectorYaml(collectorPort) +
      `clickHouse:\n  enable: true\n  databaseURL: "http://127.0.0.1:${chProxy.port}"\n  database: ${database}\n  commitInterval: 1s\n  startTimeout: 2s\n  requestTimeout: 10s\n` +
      `s3Uploader:\n  enable: true\n  bucketName: ${bucket}\n  endpoint: "http://127.0.0.1:${s3Proxy.port}"\n  uploadInterval: 1s\n  maxRecordsPerFile: 5000\n`,
  ));
  const run = await startRun(dir, { env: ENV, args: ['--config', file] });
  const startedAt = Date.now();
  t.after(async () => {
    if (run.child.process.exitCode === null) run.child.process.kill('SIGKILL');
    for (const c of collectors) await c.close();
    await chProxy.close();
    await s3Proxy.close();
    await ch.command({ query: `DROP DATABASE IF EXISTS ${database}` }).catch(() => undefined);
    await ch.close();
    s3.destroy();
  });
  const exporters = ['ipfix', 'clickhouse', 's3'];
  const admin = logAdmin(dir);

  // While every destination is down: collection goes on.
  const report = await simulate(run, dir, 10, t.signal);
  assert.ok(report.records.sent > 1000, `${report.records.sent} records sent`);
  await until('ingest wrote every record sent to flows.raw', async () => (await recordMetrics(run)).numRecordsWritten >= report.records.sent, { timeoutMs: 60_000 });
  await until('the processor wrote flows.processed', async () => (await processedOffsets(admin)) > 0, { timeoutMs: 60_000 });
  const readyz = (await readyzOf(run)).body;
  assert.equal(readyz.ready, true, `/readyz: ${JSON.stringify(readyz)}`);
  for (const kind of exporters) assert.match(readyz.checks[`export.${kind}`]?.detail ?? '', new RegExp(`^exporter ${kind}: ${UNREACHABLE_SINCE}`), kind);
  for (const kind of exporters) {
    assert.equal(await exporterMetric(run, 'flowagg_export_destination_up', kind), 0, `${kind} down`);
    await until(`${kind}: lag and oldest waiting record in the metrics`, async () => (await exporterMetric(run, 'flowagg_export_lag_records', kind)) > 0 && (await exporterMetric(run, 'flowagg_export_oldest_unexported_age_seconds', kind)) > 1, { timeoutMs: 30_000 });
  }
  assert.ok(readFlowLog(dir).length > 0, 'the flow log exporter is not held up by the others');

  // Down for FLOWAGG_TEST_OUTAGE_SECONDS after flowagg said it runs, and at least until the checks above are done.
  await sleep(Math.max(0, outageMs() - (Date.now() - startedAt)));
  t.diagnostic(`the destinations were unreachable for ${((Date.now() - startedAt) / 1000).toFixed(1)} s after flowagg run started`);
  const collector = await startTcpCollector('127.0.0.1', { port: collectorPort });
  collectors.push(collector);
  chProxy.up();
  s3Proxy.up();
  const decoders = [new CollectedDecoder(collector.messages)];
  assert.ok(chProxy.refused > 0 && s3Proxy.refused > 0, 'the exporters tried ClickHouse and S3 during the outage');

  const groups = ['flowlog', ...exporters].map((k) => `flowagg-export-${k}`);
  await until('every exporter caught up from the log', () => drained(run, admin, groups), { timeoutMs: 240_000, intervalMs: 500 });
  const reference = readFlowLog(dir);
  const want = sumsByFlow(reference, COUNTERS);
  assert.ok(want.size > 100, `${want.size} flows in the flow log`);

  const chRows = await (await ch.query({ query: `SELECT sourceIP AS sourceIPv4Address, destinationIP AS destinationIPv4Address, protocolIdentifier, sourceTransportPort, destinationTransportPort, ${COUNTERS.join(', ')} FROM ${database}.flows`, format: 'JSONEachRow' })).json<Line>();
  // Labels are quoted and hold commas: split on the commas outside single quotes.
  const at = (name: string) => S3_FIELDS.indexOf(name as (typeof S3_FIELDS)[number]);
  const s3Rows = (await readBucketLines(s3, bucket)).map((l) => l.split(/,(?=(?:[^']*'[^']*')*[^']*$)/)).map((f): Line => ({
    sourceIPv4Address: f[at('sourceIP')], destinationIPv4Address: f[at('destinationIP')],
    ...Object.fromEntries(['protocolIdentifier', 'sourceTransportPort', 'destinationTransportPort', ...COUNTERS].map((c) => [c, f[at(c)]])),
  }));
  const held = { ipfix: ipfixLines(decoders), clickhouse: chRows, s3: s3Rows };
  for (const kind of exporters) {
    const rows = held[kind as keyof typeof held];
    assert.equal(rows.length, reference.length, `${kind}: as many records as the flow log`);
    const diff = differences(sumsByFlow(rows, COUNTERS), want);
    assert.deepEqual(diff, [], `${kind}: per flow, the rows and sums of the flow log`);
  }
  // Logged once each way per exporter, however many attempts failed.
  assert.deepEqual(logged(run, 'destination unreachable at start'), exporters.slice().sort());
  assert.deepEqual(logged(run, 'destination reachable again'), exporters.slice().sort());
  for (const kind of exporters) assert.equal(await exporterMetric(run, 'flowagg_export_destination_up', kind), 1, `${kind} up`);
  await stopRun(run);
});

test('a hot reload to an IPFIX collector address nothing listens on, and back: flowagg run collects throughout, and every record arrives once', { timeout: 600_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-reload-bad-address-'));
  const collector = await startTcpCollector();
  const file = join(dir, 'flowagg.yaml');
  writeFileSync(file, configYaml(flowCollectorYaml(collector.port)));
  const run = await startRun(dir, { env: ENV, args: ['--config', file] });
  t.after(async () => {
    if (run.child.process.exitCode === null) run.child.process.kill('SIGKILL');
    await collector.close();
  });
  const admin = logAdmin(dir);
  const readyz = async () => (await readyzOf(run)).body;
  const sending = simulate(run, dir, 20, t.signal);
  await until('records at the collector', () => collector.messages.length > 0, { timeoutMs: 60_000 });

  // A malformed address is refused: flowagg runs on with the previous one.
  writeFileSync(file, configYaml('flowCollector:\n  enable: true\n  address: "https://collector:4739"\n'));
  await until('the malformed reload refused', () => run.child.stderr().includes('the changed configuration file is invalid'), { timeoutMs: 30_000 });
  // An address that is well formed and unreachable replaces the exporter, which retries.
  const nowhere = await closedPort();
  writeFileSync(file, configYaml(flowCollectorYaml(nowhere)));
  await until('the exporter replaced, its collector unreachable', async () => new RegExp(`cannot reach the IPFIX collector 127\\.0\\.0\\.1:${nowhere}`).test((await readyz()).checks['export.ipfix']?.detail ?? ''), { timeoutMs: 60_000 });
  const writtenThen = (await recordMetrics(run)).numRecordsWritten;
  await until('ingest accepting records meanwhile', async () => (await recordMetrics(run)).numRecordsWritten > writtenThen, { timeoutMs: 30_000 });
  assert.equal((await readyz()).ready, true);
  await sleep(3000);
  writeFileSync(file, configYaml(flowCollectorYaml(collector.port)));
  await until('the exporter back on its collector', async () => (await readyz()).checks['export.ipfix']?.detail === undefined, { timeoutMs: 60_000 });
  const report = await sending;
  await until('ingest wrote every record sent', async () => (await recordMetrics(run)).numRecordsWritten >= report.records.sent, { timeoutMs: 60_000 });
  await until('both exporters caught up from the log', () => drained(run, admin, ['flowagg-export-flowlog', 'flowagg-export-ipfix']), { timeoutMs: 240_000, intervalMs: 500 });

  const reference = readFlowLog(dir);
  const received = ipfixLines([new CollectedDecoder(collector.messages)]);
  assert.equal(received.length, reference.length, 'as many records at the collector as in the flow log');
  assert.deepEqual(differences(sumsByFlow(received, COUNTERS), sumsByFlow(reference, COUNTERS)), [], 'per flow, the records and sums of the flow log');
  await stopRun(run);
});
