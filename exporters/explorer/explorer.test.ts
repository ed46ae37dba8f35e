// The explorer service on an embedded log, behind a real HTTP server: it folds flows.processed into its
// rollups, a new explorer on the same log rebuilds the same figures (nothing lost, nothing counted twice),
// the flow search reads the log, the path view finds both halves of a flow in flows.raw, and a query
// that cannot be answered is a 400 naming its parameter.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openEmbeddedLog } from '../../lib/log/embedded/index.js';
import { topicsSchema } from '../../lib/log/topics.js';
import type { MessageLog } from '../../lib/log/types.js';
import { TelemetryServer } from '../../lib/telemetry/http.js';
import { until } from '../../lib/testing/until.js';
import { flowKeyOfRecord } from '../../schemas/flow-key.js';
import { FlowRecordDecoder } from '../../schemas/flow-record-decoder.js';
import { flowRecordWriter } from '../../schemas/flow-record.js';
import { numberedRecord } from '../testing/records.js';
import { mountExplorerApi } from './api.js';
import type { OverviewResponse, PathResponse, SearchResponse } from './api-types.js';
import { explorerSection } from './config.js';
import { createExplorer, type Explorer } from './index.js';

const topics = topicsSchema.parse({});
const config = explorerSection.parse({ maxMemory: '32MiB' });
const decoder = new FlowRecordDecoder();
const NOW = Date.now();
const RECORDS = 200;
let dir: string;
let log: MessageLog;

/** Record i of flows.processed: one of 10 client Pods to the server, a minute ago or less. */
const processed = (i: number) => {
  const end = NOW - 60_000 + i * 100;
  return numberedRecord(i, { sourcePodName: `client-${i % 10}`, flowEndMilliseconds: end, flowEndSecondsFromSourceNode: Math.floor(end / 1000), octetDeltaCountFromSourceNode: 1000 + i, reverseOctetDeltaCountFromSourceNode: 0, packetDeltaCountFromSourceNode: 1 });
};

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowagg-explorer-'));
  log = await openEmbeddedLog({ dir, fsync: { policy: 'interval' } });
  await log.admin().createTopics([{ topic: topics.flowsProcessed, partitions: topics.flowsProcessedPartitions }, { topic: topics.flowsRaw, partitions: topics.flowsRawPartitions }]);
  const writer = flowRecordWriter();
  const producer = log.producer();
  const records = Array.from({ length: RECORDS }, (_, i) => processed(i));
  await producer.send(topics.flowsProcessed, records.map((r) => ({ key: flowKeyOfRecord(r), value: writer.encode(r) })));
  // Flow 0's two halves in flows.raw, as two Nodes exported them, and a record of another flow.
  const flow = { ...processed(0), flowEndSecondsFromSourceNode: null };
  const halves = [
    { ...flow, exporterAddress: '192.168.0.1', observationDomainId: 11, destinationPodName: '', destinationPodNamespace: '', octetDeltaCount: 500 },
    { ...flow, exporterAddress: '192.168.0.2', observationDomainId: 22, sourcePodName: '', sourcePodNamespace: '', octetDeltaCount: 500 },
    { ...processed(1), exporterAddress: '192.168.0.3' },
  ];
  await producer.send(topics.flowsRaw, halves.map((r) => ({ key: flowKeyOfRecord(r), value: writer.encode(r) })));
  await producer.close();
});

after(async () => {
  await log.close();
  await rm(dir, { recursive: true, force: true });
});

async function serve(explorer: Explorer): Promise<{ url: string; close: () => Promise<void> }> {
  const http = new TelemetryServer();
  const access = { reader: log.reader(), admin: log.admin(), budget: config.maxScanRecords };
  mountExplorerApi(http, {
    explorer: () => explorer, config,
    processed: { ...access, topic: topics.flowsProcessed, decode: (v) => decoder.decode(v) },
    raw: { ...access, topic: topics.flowsRaw, decode: (v) => decoder.decode(v) },
  });
  const port = await http.listen({ port: 0, host: '127.0.0.1' });
  return { url: `http://127.0.0.1:${port}/api/v1`, close: async () => { await http.close(); await access.reader.close(); } };
}

const json = async <T>(url: string): Promise<T> => {
  const res = await fetch(url);
  assert.equal(res.status, 200, `${url}: ${await res.clone().text()}`);
  return (await res.json()) as T;
};

async function overviewOnce(): Promise<OverviewResponse['top']['podPairs']> {
  const explorer = createExplorer(config, { log, topics, decoder });
  await explorer.start();
  const api = await serve(explorer);
  try {
    await until('every record folded', () => explorer.status().records === RECORDS && explorer.status().rebuilding === undefined);
    const overview = await json<OverviewResponse>(`${api.url}/overview?from=${NOW - 600_000}&limit=100`);
    return overview.top.podPairs;
  } finally {
    await api.close();
    await explorer.stop();
  }
}

test('explorer: the rollups hold what flows.processed holds, and a new explorer rebuilds the same from the log', async () => {
  const first = await overviewOnce();
  const want = new Map<string, number>();
  for (let i = 0; i < RECORDS; i++) want.set(`client-${i % 10}`, (want.get(`client-${i % 10}`) ?? 0) + 1000 + i);
  assert.deepEqual(new Map(first.map((r) => [r.key[0]!.split('/')[1]!, r.bytes])), want);
  assert.ok(first.every((r) => r.error === 0 && r.key[1] === 'perf/server'));
  assert.deepEqual(await overviewOnce(), first, 'rebuilt from the log at start: the same figures');
});

test('explorer API: the flow search, a flow with its exports, the path view with both Nodes', async () => {
  const explorer = createExplorer(config, { log, topics, decoder });
  await explorer.start();
  const api = await serve(explorer);
  try {
    const search = await json<SearchResponse>(`${api.url}/flows?from=${NOW - 600_000}&to=${NOW + 60_000}&pod=perf/client-3&sort=bytes&order=asc&pageSize=5`);
    assert.equal(search.matched, RECORDS / 10);
    assert.deepEqual(search.rows.map((r) => r.bytes), [1003, 1013, 1023, 1033, 1043]);
    assert.ok(search.scan.complete);
    const row = search.rows[0]!;
    const flow = await json<{ record: Record<string, unknown>; exports: unknown[] }>(`${api.url}/flow?partition=${row.partition}&offset=${row.offset}&from=${NOW - 600_000}`);
    assert.equal(flow.record.sourcePodName, 'client-3');
    assert.equal(flow.exports.length, 1, 'flow 3 was exported once');

    const f = processed(0);
    const path = await json<PathResponse>(`${api.url}/path?from=${NOW - 600_000}&to=${NOW + 60_000}&src=10.1.0.0&dst=10.2.0.1&proto=6&sport=${f.sourceTransportPort}&dport=${f.destinationTransportPort}`);
    assert.deepEqual(path.points.map((p) => [p.exporter, p.side, p.node, p.bytes]).sort(), [['192.168.0.1', 'source', 'node-a', 564], ['192.168.0.2', 'destination', 'node-b', 564]]);

    const bad = await fetch(`${api.url}/flows?ip=not-an-ip`);
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: string }).error, /^ip: invalid IP/);
    assert.equal((await fetch(`${api.url}/overview?from=5&to=4`)).status, 400);
  } finally {
    await api.close();
    await explorer.stop();
  }
});
