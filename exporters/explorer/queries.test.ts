import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dropSeries, graph, merged, timeSeries, top } from './queries.js';
import { Rollups } from './rollups.js';
import { external, facts, pod } from './testing/facts.js';

const NOW = 1_800_000_000_000;
const tiers = [{ bucketMs: 10_000, horizonMs: 3_600_000 }];

function bucketsOf(...all: ReturnType<typeof facts>[]) {
  const r = new Rollups({ tiers, maxMemoryBytes: 64 * 1024 * 1024 });
  for (const f of all) r.add(f, NOW);
  return r.tiers[0]!.range(NOW - 3_600_000, NOW + 1);
}

const web = pod('shop', 'web-1', 'web');
const web2 = pod('shop', 'web-2', 'web');
const api = pod('payments', 'api-1', 'api');
const db = pod('payments', 'db-0', 'db');

test('top: keys by bytes over the buckets, exact while no bucket evicted', () => {
  const buckets = bucketsOf(
    facts({ time: NOW - 15_000, source: web, destination: api, bytes: 300 }),
    facts({ time: NOW - 5_000, source: web, destination: api, bytes: 200 }),
    facts({ time: NOW - 5_000, source: web2, destination: db, bytes: 400 }),
  );
  assert.equal(buckets.length, 2);
  assert.deepEqual(top(buckets, 'podPair', 10).map((r) => [r.key, r.bytes, r.records, r.error]), [
    [['shop/web-1', 'payments/api-1'], 500, 2, 0],
    [['shop/web-2', 'payments/db-0'], 400, 1, 0],
  ]);
  assert.deepEqual(top(buckets, 'namespacePair', 10).map((r) => [r.key, r.bytes]), [[['shop', 'payments'], 900]]);
});

test('merged: where a bucket no longer holds a key, its floor is added to the key\'s error', () => {
  const r = new Rollups({ tiers, maxMemoryBytes: 16 * 1024 * 1024 });
  r.add(facts({ time: NOW - 15_000, source: web, destination: api, bytes: 10 }), NOW);
  // The next bucket is flooded with heavier one-off pairs until the web → api pair would be evicted.
  for (let i = 0; i < 5000; i++) r.add(facts({ time: NOW - 5_000, source: pod('x', `p-${i}`), destination: api, bytes: 1000 }), NOW);
  const buckets = r.tiers[0]!.range(NOW - 60_000, NOW + 1);
  const floor = buckets[1]!.top.podPair.floor;
  assert.ok(floor > 0, 'the flooded bucket evicted');
  const m = merged(buckets, 'podPair');
  assert.equal(m.error[m.at('shop/web-1\tpayments/api-1')!], floor);
});

test('timeSeries: the heaviest keys per bucket, and the rest as "other"', () => {
  const buckets = bucketsOf(
    facts({ time: NOW - 15_000, source: web, bytes: 100, packets: 1 }),
    facts({ time: NOW - 5_000, source: api, bytes: 50, packets: 1 }),
    facts({ time: NOW - 5_000, source: db, bytes: 30, packets: 1 }),
  );
  const view = timeSeries(buckets, 10_000, 'namespace', 1);
  assert.deepEqual(view.times, [NOW - 20_000, NOW - 10_000]);
  assert.deepEqual(view.series.map((s) => [s.key, s.bytes]), [['shop', [100, 0]], ['other', [0, 80]]]);
  assert.deepEqual(view.total.bytes, [100, 80]);
});

test('dropSeries and the policy dimension: denied traffic by policy, its rules added up', () => {
  const denial = (policy: string, rule: string) => ({ direction: 'ingress' as const, policy, rule, action: 'Reject' as const, namespace: 'payments' });
  const buckets = bucketsOf(
    facts({ time: NOW - 5_000, destination: api, bytes: 60, packets: 1, denial: denial('payments/deny', 'a') }),
    facts({ time: NOW - 5_000, destination: api, bytes: 120, packets: 2, denial: denial('payments/deny', 'b') }),
    facts({ time: NOW - 5_000, destination: api, bytes: 1000, packets: 5 }),
  );
  const view = dropSeries(buckets, 10_000, 8);
  assert.deepEqual(view.series.map((s) => [s.key, s.packets]), [['payments/deny', [3]], ['other', [0]]]);
  assert.deepEqual(top(buckets, 'policy', 10).map((r) => r.key), [['ingress', 'payments/deny', 'b', 'Reject'], ['ingress', 'payments/deny', 'a', 'Reject']]);
  assert.deepEqual(top(buckets, 'deniedNamespace', 10).map((r) => [r.key[0], r.bytes]), [['payments', 180]]);
});

test('graph: namespaces, one expanded to workloads and one workload to Pods, each edge counted once', () => {
  const buckets = bucketsOf(
    facts({ source: web, destination: api, bytes: 100 }),
    facts({ source: web2, destination: api, bytes: 10 }),
    facts({ source: web, destination: db, bytes: 40 }),
    facts({ source: web, destination: external('203.0.113.9'), bytes: 7 }),
  );
  const edges = (expanded: string[]) => graph(buckets, new Set(expanded), 100).edges.map((e) => `${e.source} → ${e.target} ${e.bytes}`).sort();
  assert.deepEqual(edges([]), ['shop → external 7', 'shop → payments 150']);
  assert.deepEqual(edges(['payments']), ['shop → external 7', 'shop → payments/api 110', 'shop → payments/db 40']);
  assert.deepEqual(edges(['shop', 'shop/web']), ['shop/web/web-1 → external 7', 'shop/web/web-1 → payments 140', 'shop/web/web-2 → payments 10']);
  const view = graph(buckets, new Set(), 1);
  assert.equal(view.edges.length, 1);
  assert.equal(view.truncated, true);
  assert.deepEqual(view.nodes.map((n) => [n.id, n.bytesOut, n.bytesIn]).sort(), [['payments', 0, 150], ['shop', 150, 0]]);
});
