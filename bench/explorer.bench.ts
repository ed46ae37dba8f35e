// The flow explorer (issue 19): how fast it folds flows.processed, and what its API calls cost when the
// rollups are as full as a flood makes them (600,000 distinct flows in each tier's span: every sketch of
// every bucket at its share of the 256 MiB ceiling), against the 500 ms per call; and one flow
// search reading its whole budget of records from the log.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { topicsSchema } from '../lib/log/topics.js';
import { FlowRecordDecoder } from '../schemas/flow-record-decoder.js';
import { flowRecordWriter } from '../schemas/flow-record.js';
import { flowKeyOfRecord } from '../schemas/flow-key.js';
import { numberedRecord } from '../exporters/testing/records.js';
import { flowFacts } from '../exporters/explorer/flow-facts.js';
import { dropSeries, graph, timeSeries, top } from '../exporters/explorer/queries.js';
import { defaultTiers, Rollups } from '../exporters/explorer/rollups.js';
import { searchFlows } from '../exporters/explorer/search.js';
import { floodFacts } from '../exporters/explorer/testing/facts.js';
import { explorerSection } from '../exporters/explorer/config.js';
import { type BenchResult, type Benchmark, measure } from './types.js';

const HOUR = 3_600_000;
const CEILING = 256 * 1024 * 1024;
const TARGET_MS = 500;
const context = () => `load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} CPUs`;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** The slowest of `runs` calls, in ms, each serialised as the API sends it. */
function slowest(runs: number, call: () => unknown): { ms: number; bytes: number } {
  let ms = 0;
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    bytes = JSON.stringify(call()).length;
    ms = Math.max(ms, performance.now() - start);
  }
  return { ms, bytes };
}

const bench: Benchmark = async (log) => {
  const results: BenchResult[] = [];
  const now = Date.now();

  // Folding: decode, facts, both tiers; records of 1,000 distinct flows between 70 Pods.
  const writer = flowRecordWriter();
  const decoder = new FlowRecordDecoder();
  const values = Array.from({ length: 1000 }, (_, i) => writer.encode(numberedRecord(i, { flowEndMilliseconds: now - 1000, sourcePodName: `client-${i % 70}-7d9f8c6b5-abcde` })));
  const folding = new Rollups({ tiers: defaultTiers(24 * HOUR), maxMemoryBytes: CEILING });
  const rate = await measure(() => {
    for (const v of values) folding.add(flowFacts(decoder.decode(v), now), now);
  }, values.length);
  results.push({ name: 'explorer: records folded into the rollups', value: Math.round(rate), unit: 'records/s', note: `decode, facts, 9 sketches in each of 3 tiers; ${context()}` });

  // A flood that fills every bucket of both tiers.
  const flooded = new Rollups({ tiers: defaultTiers(24 * HOUR), maxMemoryBytes: CEILING });
  // 600,000 distinct flows in each tier's own span: the last 15 min, the rest of 90 min, the rest of 24 h.
  const flood = 600_000;
  const spans = [[now - HOUR / 4, HOUR / 4], [now - 1.5 * HOUR, 1.25 * HOUR], [now - 24 * HOUR, 22.5 * HOUR]] as const;
  const started = performance.now();
  spans.forEach(([from, span], k) => {
    for (let i = 0; i < flood; i++) flooded.add(floodFacts(i, flood, from, span, k * flood), now);
  });
  const flows = fmt(spans.length * flood);
  log(`flooded with ${flows} distinct flows in ${((performance.now() - started) / 1000).toFixed(1)} s: rollups ${fmt(flooded.memoryBytes() / 2 ** 20)} MiB of ${CEILING / 2 ** 20} MiB`);
  results.push({ name: `explorer: rollup memory after ${flows} distinct flows`, value: Math.round(flooded.memoryBytes() / 2 ** 20), unit: 'MiB', note: `ceiling ${CEILING / 2 ** 20} MiB (explorer.maxMemory); accounted bytes` });
  for (const [label, span] of [['15 min', HOUR / 4], ['1 h', HOUR], ['6 h', 6 * HOUR], ['24 h', 24 * HOUR]] as const) {
    const tier = flooded.tierFor(now - span, now, now);
    const buckets = tier.range(now - span, now + 1);
    const calls: [string, () => unknown][] = [
      ['overview', () => ({ traffic: timeSeries(buckets, tier.spec.bucketMs, 'namespace', 8), podPairs: top(buckets, 'podPair', 10), namespacePairs: top(buckets, 'namespacePair', 10), services: top(buckets, 'service', 10), external: top(buckets, 'external', 10) })],
      ['graph', () => graph(buckets, new Set(['ns-1', 'ns-2']), 200)],
      ['drops', () => ({ drops: dropSeries(buckets, tier.spec.bucketMs, 8), rules: top(buckets, 'policy', 50), namespaces: top(buckets, 'deniedNamespace', 50) })],
    ];
    for (const [view, call] of calls) {
      const r = slowest(5, call);
      results.push({ name: `explorer API: ${view}, ${label}, flooded rollups`, value: Number(r.ms.toFixed(1)), unit: 'ms (slowest of 5)', note: `${buckets.length} buckets of ${tier.spec.bucketMs / 1000} s, ${fmt(r.bytes)} bytes of JSON; the issue's bound ${TARGET_MS} ms; ${context()}` });
    }
  }

  // A flow search that reads its whole budget (explorer.maxScanRecords) from the embedded log.
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-bench-explorer-'));
  const store = await openEmbeddedLog({ dir, fsync: { policy: 'interval' } });
  try {
    const topics = topicsSchema.parse({});
    await store.admin().createTopics([{ topic: topics.flowsProcessed, partitions: topics.flowsProcessedPartitions }]);
    const producer = store.producer();
    const budget = explorerSection.parse({}).maxScanRecords;
    for (let at = 0; at < budget; at += 5000) {
      const batch = Array.from({ length: 5000 }, (_, i) => numberedRecord(at + i, { flowEndMilliseconds: now - 60_000 }));
      await producer.send(topics.flowsProcessed, batch.map((r) => ({ key: flowKeyOfRecord(r), value: writer.encode(r) })));
    }
    await producer.close();
    const reader = store.reader();
    const deps = { reader, admin: store.admin(), topic: topics.flowsProcessed, decode: (v: Buffer) => decoder.decode(v), budget };
    const url = new URL('http://x/?pod=perf/client-3&sort=bytes&pageSize=50');
    let ms = 0;
    let scanned = 0;
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      scanned = (await searchFlows(deps, url, { from: now - HOUR, to: now })).scan.scanned;
      ms = Math.max(ms, performance.now() - start);
    }
    results.push({ name: 'explorer API: flow search reading its whole budget', value: Math.round(ms), unit: 'ms (slowest of 3)', note: `${fmt(scanned)} records read and decoded from the embedded log, filtered, sorted; ${context()}` });
    await reader.close();
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
  return results;
};

export default bench;
