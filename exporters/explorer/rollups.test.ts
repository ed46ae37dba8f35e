import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DIMENSION_NAMES, defaultTiers, dimensionKeys, Rollups } from './rollups.js';
import { external, facts, floodFacts, pod } from './testing/facts.js';

const HOUR = 3_600_000;
const NOW = 1_800_000_000_000;

test('rollups: a record is counted once in each tier, in the bucket of its flow end', () => {
  const r = new Rollups({ tiers: defaultTiers(24 * HOUR), maxMemoryBytes: 64 * 1024 * 1024 });
  r.add(facts({ time: NOW - 25_000, bytes: 100, packets: 2 }), NOW);
  r.add(facts({ time: NOW - 24_000, bytes: 50, packets: 1 }), NOW);
  r.add(facts({ time: NOW - 2 * HOUR, bytes: 7, packets: 1 }), NOW);
  const [fine, , coarse] = r.tiers;
  assert.deepEqual(fine!.range(NOW - HOUR, NOW).map((b) => [b.start, b.totals.bytes, b.totals.records]), [[NOW - 30_000, 150, 2]]);
  assert.deepEqual(coarse!.range(NOW - 3 * HOUR, NOW).map((b) => b.totals.bytes), [7, 150]);
  assert.equal(r.outside, 0, 'two hours back is outside the fine tier but inside the coarse one');
  r.add(facts({ time: NOW - 25 * HOUR }), NOW);
  r.add(facts({ time: NOW + HOUR }), NOW);
  assert.equal(r.outside, 2, 'older than the horizon, and an hour ahead of the clock');
});

test('rollups: buckets older than a tier\'s horizon go as the clock moves', () => {
  const r = new Rollups({ tiers: defaultTiers(2 * HOUR), maxMemoryBytes: 64 * 1024 * 1024 });
  r.add(facts({ time: NOW }), NOW);
  r.evict(NOW + HOUR + 60_000);
  assert.equal(r.tiers[0]!.size, 0, 'the fine tier keeps 15 minutes');
  assert.equal(r.tiers[2]!.size, 1);
  r.evict(NOW + 3 * HOUR);
  assert.equal(r.tiers[2]!.size, 0);
});

test('rollups: the finest tier that holds a range in at most 96 buckets answers it', () => {
  const r = new Rollups({ tiers: defaultTiers(24 * HOUR), maxMemoryBytes: 64 * 1024 * 1024 });
  const bucketOf = (span: number) => r.tierFor(NOW - span, NOW, NOW).spec.bucketMs;
  assert.deepEqual([300_000, 900_000, HOUR, 6 * HOUR, 24 * HOUR].map(bucketOf), [10_000, 10_000, 60_000, 900_000, 900_000]);
  assert.equal(r.tierFor(NOW - HOUR, NOW - 0.9 * HOUR, NOW).spec.bucketMs, 60_000, 'six minutes an hour ago: past the 10 s buckets\' 15 minutes');
  assert.equal(r.tierFor(NOW - 3 * HOUR, NOW - 2.9 * HOUR, NOW).spec.bucketMs, 900_000, 'three hours ago: past the 1 min buckets\' 90 minutes');
});

test('rollups: the keys of a denied flow to an external address', () => {
  const keys = dimensionKeys(facts({
    source: pod('shop', 'web-7d9f8c6b5-x2x4z', 'web'), destination: external('203.0.113.9'), external: '203.0.113.9', service: '',
    denial: { direction: 'egress', policy: 'shop/lockdown', rule: 'drop-all', action: 'Drop', namespace: 'shop' },
  }));
  assert.deepEqual(keys, {
    namespace: 'shop', node: 'node-0', podPair: 'shop/web-7d9f8c6b5-x2x4z\texternal/203.0.113.9', workloadPair: 'shop/web\texternal/203.0.113.9',
    namespacePair: 'shop\texternal', external: '203.0.113.9', policy: 'egress\tshop/lockdown\tdrop-all\tDrop', deniedNamespace: 'shop',
  });
});

test('rollups: a ceiling too small for the buckets is refused at once', () => {
  assert.throws(() => new Rollups({ tiers: defaultTiers(24 * HOUR), maxMemoryBytes: 1024 * 1024 }), /at least 16 KiB each/);
});

test('rollups: a flood of 1,000,000 distinct flows in 10 minutes stays under the memory ceiling, and the totals stay exact', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const ceiling = 24 * 1024 * 1024;
  const count = 1_000_000;
  const start = NOW - 600_000;
  gc();
  const before = process.memoryUsage().heapUsed;
  // Tiers the flood fills to their last bucket (10 s and 1 min buckets over the 10 minutes), so that
  // every sketch reaches its share of the ceiling.
  const r = new Rollups({ tiers: [{ bucketMs: 10_000, horizonMs: 600_000 }, { bucketMs: 60_000, horizonMs: 600_000 }], maxMemoryBytes: ceiling });
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const f = floodFacts(i, count, start, 600_000);
    bytes += f.bytes;
    // The clock moves with the flood, as it does for a service folding it live.
    r.add(f, f.time);
  }
  gc();
  const heap = process.memoryUsage().heapUsed - before;
  const accounted = r.memoryBytes();
  assert.ok(accounted <= ceiling, `the rollups account ${accounted} bytes against a ceiling of ${ceiling}`);
  assert.ok(heap <= ceiling, `the heap grew by ${heap} bytes, over the ceiling of ${ceiling}`);
  assert.ok(accounted > ceiling / 2, `the flood fills the sketches (${accounted} bytes accounted)`);
  for (const tier of r.tiers) {
    const buckets = tier.range(start, NOW + 1);
    assert.equal(buckets.reduce((n, b) => n + b.totals.bytes, 0), bytes, `${tier.spec.bucketMs} ms buckets: the totals are exact`);
    assert.ok(buckets.every((b) => DIMENSION_NAMES.every((d) => b.top[d].bytes <= b.top[d].budgetBytes)));
  }
  console.log(`flood: ${count} flows, heap +${(heap / 2 ** 20).toFixed(1)} MiB, accounted ${(accounted / 2 ** 20).toFixed(1)} MiB, ceiling ${ceiling / 2 ** 20} MiB`);
});
