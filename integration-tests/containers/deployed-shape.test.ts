// The deployed shape, each service its own container on one Docker network, as the Helm chart deploys it:
// Kafka, ClickHouse, `flowagg ingest`, two `flowagg process` sharing flows.raw's partitions, and the
// exporters (`flowagg export clickhouse`, `flowagg export flowlog`), every flowagg container from the
// product image with the same configuration file mounted read-only at /etc/flowagg, where the chart
// mounts its ConfigMap. softflowd on the host exports to ingest's published TCP port; the test waits for
// ClickHouse to hold what was sent, then checks every flow's octets and packets there and in the flow
// log, and that both processors took part.
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { untilHolds } from '../../lib/testing/until.js';
import { startClickHouseContainer } from '../harness/clickhouse-container.js';
import { type ApiTarget, apiRequest } from '../../lib/apiserver/client.js';
import { containerApi, containersForTests, hostOf, localContainer, testcontainers } from '../harness/containers.js';
import { startKafkaContainer } from '../harness/kafka-container.js';
import { runSoftflowd } from '../harness/softflowd.js';
import { expectedExport, writeTrafficPcap } from '../harness/softflowd-export.js';
import { requireTools, SOFTFLOWD } from '../harness/tools.js';
import { conversationMix, renderTraffic } from '../harness/traffic.js';

const log = (line: string) => console.log(`[deployed-shape] ${line}`);
const CONFIG_DIR = '/etc/flowagg';
const CONFIG = `${CONFIG_DIR}/flow-aggregator.conf`;

/** flow key -> [octets, packets] */
type Totals = Map<string, [number, number]>;
const flowKey = (src: string, dst: string, srcPort: number, dstPort: number, proto: number) => `${src} ${srcPort} ${dst} ${dstPort} ${proto}`;

function add(totals: Totals, key: string, octets: number, packets: number): void {
  const t = totals.get(key) ?? [0, 0];
  totals.set(key, [t[0] + octets, t[1] + packets]);
}

async function clickHouseTotals(url: string): Promise<Totals> {
  const sql =
    'SELECT sourceIP, destinationIP, sourceTransportPort, destinationTransportPort, protocolIdentifier, sum(octetDeltaCount), sum(packetDeltaCount) ' +
    'FROM flows GROUP BY sourceIP, destinationIP, sourceTransportPort, destinationTransportPort, protocolIdentifier FORMAT JSONCompact';
  const res = await fetch(`${url}/?query=${encodeURIComponent(sql)}`, { method: 'POST' });
  const text = await res.text();
  // Until the exporter has created the table.
  if (res.status !== 200) return /UNKNOWN_TABLE|doesn't exist/.test(text) ? new Map() : Promise.reject(new Error(`ClickHouse: ${text}`));
  const totals: Totals = new Map();
  for (const [src, dst, sp, dp, proto, octets, packets] of (JSON.parse(text) as { data: [string, string, number, number, number, string, string][] }).data) {
    add(totals, flowKey(src, dst, sp, dp, proto), Number(octets), Number(packets));
  }
  return totals;
}

async function json(api: ApiTarget, path: string): Promise<Record<string, number | boolean>> {
  return (await apiRequest(api, path)).json as Record<string, number | boolean>;
}

test('ingest, two processors and the exporters in containers of the product image deliver every flow to ClickHouse and the flow log', async (t) => {
  const runtime = await containersForTests();
  if (runtime.skip) return t.skip(runtime.skip);
  if (!requireTools(t, SOFTFLOWD)) return;
  const { Network } = await testcontainers(log);
  const stops: (() => Promise<unknown>)[] = [];
  t.after(async () => {
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => log(`stopping: ${(err as Error).message}`));
  });

  const network = await new Network().start();
  stops.push(() => network.stop());
  const on = (alias: string) => ({ name: network.getName(), alias });
  const [kafka, clickhouse] = await Promise.all([startKafkaContainer(log, on('kafka')), startClickHouseContainer(log, on('clickhouse'))]);
  stops.push(kafka.stop, clickhouse.stop);

  const work = await mkdtemp(join(tmpdir(), 'flowagg-deployed-'));
  stops.push(() => rm(work, { recursive: true, force: true }));
  const configDir = join(work, 'config');
  const flowLogs = join(work, 'flowlogs');
  await mkdir(configDir);
  await mkdir(flowLogs);
  await chmod(flowLogs, 0o777); // the image's user (uid 10001) writes the flow log there
  // Short flow timeouts and watermark advance so that every flow is exported within seconds.
  await writeFile(
    join(configDir, 'flow-aggregator.conf'),
    `mode: Aggregate
aggregatorTransportProtocol: [udp, tcp]
activeFlowRecordTimeout: 2s
inactiveFlowRecordTimeout: 3s
log:
  backend: kafka
  kafka:
    brokers: [${kafka.networkBrokers}]
clickHouse:
  databaseURL: ${clickhouse.networkUrl}
  commitInterval: 1s
flowLogger:
  path: /var/log/flowagg/flows.log
  recordFormat: JSON
`,
  );

  const flowagg = async (alias: string, args: string[], extra: (c: Awaited<ReturnType<typeof localContainer>>['container']) => void = () => {}) => {
    const { container: definition, Wait } = await localContainer('flowagg', log, on(alias));
    definition
      .withCommand([...args, '--config', CONFIG])
      .withBindMounts([{ source: configDir, target: CONFIG_DIR, mode: 'ro' }])
      .withExposedPorts(10348)
      .withWaitStrategy(Wait.forHealthCheck());
    extra(definition);
    const container = await definition.start();
    stops.push(() => container.stop());
    // HTTPS, as a configuration file asks (Antrea's default): the API as antctl reaches it in the Pod.
    return { container, api: await containerApi(container) };
  };
  // Ingest first: it creates the topics the others read.
  const ingest = await flowagg('ingest', ['ingest'], (c) => c.withExposedPorts(4739, 10348));
  const [processA, processB, , flowlog] = await Promise.all([
    flowagg('process-a', ['process']),
    flowagg('process-b', ['process']),
    flowagg('export-clickhouse', ['export', 'clickhouse']),
    flowagg('export-flowlog', ['export', 'flowlog'], (c) => c.withBindMounts([
      { source: configDir, target: CONFIG_DIR, mode: 'ro' },
      { source: flowLogs, target: '/var/log/flowagg', mode: 'rw' },
    ])),
  ]);
  assert.equal((await json(flowlog.api, '/recordmetrics')).withLogExporter, true);

  // The two processors share flows.raw's four partitions before anything is sent, so that both take part.
  const partitions = async (api: ApiTarget) => Number(/^flowagg_processor_partitions (\d+)$/m.exec((await apiRequest(api, '/metrics')).text)?.[1] ?? 0);
  await untilHolds('two of flows.raw\'s partitions assigned to each processor', () => Promise.all([processA, processB].map((p) => partitions(p.api))), (shares) => shares[0] === 2 && shares[1] === 2, { timeoutMs: 120_000, intervalMs: 500 });

  const traffic = renderTraffic(conversationMix({ count: 200, seed: 41 }));
  const pcapPath = await writeTrafficPcap(traffic, work);
  const softflowd = await runSoftflowd({
    pcapPath, collector: { address: hostOf(ingest.container), port: ingest.container.getMappedPort(4739) }, transport: 'tcp', timeFormat: 'milli', signal: t.signal,
  });
  const expected: Totals = new Map();
  for (const r of expectedExport(traffic, { bidirectional: false, timeFormat: 'milli' })) add(expected, flowKey(r.src, r.dst, r.srcPort, r.dstPort, r.proto), r.octets, r.packets);
  assert.equal(softflowd.stats.sendFailures, 0);
  assert.ok(expected.size > 150, `only ${expected.size} flows`);

  const sum = (totals: Totals) => [...totals.values()].reduce(([o, p], [a, b]) => [o + a, p + b], [0, 0]);
  const want = sum(expected);
  const got = await untilHolds('ClickHouse to hold every octet sent', () => clickHouseTotals(clickhouse.url), (totals) => sum(totals)[0]! >= want[0]!, { timeoutMs: 180_000, intervalMs: 500 });
  assert.equal((await json(ingest.api, '/recordmetrics')).numRecordsWritten, softflowd.stats.recordsExported);
  assert.deepEqual(new Map([...got].sort()), new Map([...expected].sort()), 'octets and packets of every flow in ClickHouse');

  // Both processors processed records of their partitions.
  for (const p of [processA, processB]) assert.ok(((await json(p.api, '/recordmetrics')).numRecordsProcessed as number) > 0, `${p.api.url} processed nothing`);

  // The flow log holds every flow too (its file is written as the exporter commits: wait for the last rows).
  const logged = await untilHolds('the flow log to hold every octet sent', () => flowLogTotals(flowLogs), (totals) => sum(totals)[0]! >= want[0]!, { timeoutMs: 60_000, intervalMs: 500 });
  assert.deepEqual(new Map([...logged].sort()), new Map([...expected].sort()), 'octets and packets of every flow in the flow log');
});

/** Totals from the flow log files (recordFormat JSON: information element names, docs/exporters.md). */
async function flowLogTotals(dir: string): Promise<Totals> {
  const totals: Totals = new Map();
  // Beside the log, the exporter keeps its delivery state (.flows.log.flowagg-state).
  for (const name of (await readdir(dir)).filter((n) => n.startsWith('flows.log'))) {
    for (const line of (await readFile(join(dir, name), 'utf8')).split('\n')) {
      if (line === '') continue;
      const r = JSON.parse(line) as Record<string, string | number | undefined>;
      const src = String(r.sourceIPv4Address ?? r.sourceIPv6Address);
      const dst = String(r.destinationIPv4Address ?? r.destinationIPv6Address);
      const n = (k: string) => Number(r[k] ?? 0);
      add(totals, flowKey(src, dst, n('sourceTransportPort'), n('destinationTransportPort'), n('protocolIdentifier')), n('octetDeltaCount'), n('packetDeltaCount'));
    }
  }
  return totals;
}
