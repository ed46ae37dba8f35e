import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shapeOf } from './plan.js';
import { DEFAULT_FLOWS, ratePlan } from './rate-plan.js';
import { TokenBucket } from './token-bucket.js';

test('the token bucket lets out `rate` a second after its burst, and never more than the burst at once', () => {
  const b = new TokenBucket(1000, 50, 0);
  assert.equal(b.available(0), 50);
  b.take(50);
  assert.equal(b.available(0), 0);
  assert.equal(b.msUntilToken(), 1);
  assert.equal(b.available(10), 10);
  b.take(10);
  assert.equal(b.available(10_000), 50, 'capped at the burst after a long pause');
  b.take(50);
  let sent = 0;
  for (let t = 10_000; t < 11_000; t++) {
    const n = b.available(t);
    b.take(n);
    sent += n;
  }
  assert.ok(sent >= 998 && sent <= 1000, `${sent} in one second at 1000/s`);
});

test('flows and rate follow from each other: M flows × reporting Nodes / interval', () => {
  const at = { exportIntervalS: 5, reportersPerFlow: 1.6 };
  assert.deepEqual(ratePlan({ ...at }), { ok: true, plan: { flows: DEFAULT_FLOWS, rate: 320, natural: 320 } });
  assert.deepEqual(ratePlan({ ...at, flows: 500 }), { ok: true, plan: { flows: 500, rate: 160, natural: 160 } });
  assert.deepEqual(ratePlan({ ...at, rate: 10_000 }), { ok: true, plan: { flows: 31_250, rate: 10_000, natural: 10_000 } });
  const capped = ratePlan({ ...at, flows: 1000, rate: 100 });
  assert.deepEqual(capped, { ok: true, plan: { flows: 1000, rate: 100, natural: 320 } }, 'a rate below what the flows give caps it');
  const short = ratePlan({ ...at, flows: 1000, rate: 1000 });
  assert.equal(short.ok, false);
  assert.match((short as { error: string }).error, /--rate 1000 needs at least 3125 concurrent flows: 1000 flows give 320 records\/s/);
});

test('a shape: the workload\'s own reporters per flow; the bucket 5% above the flows\' rate unless the rate caps it', () => {
  const base = { nodes: 6, firstNode: 0, recordsPerFlow: 5, exportIntervalS: 5, ipv6Share: 0.1, seed: 1 };
  const s = shapeOf({ ...base, rate: 5000 });
  assert.ok(s.ok);
  assert.ok(s.shape.flows > 13_000 && s.shape.flows < 18_000, `${s.shape.flows} flows for 5000 records/s`);
  assert.ok(Math.abs(s.shape.natural - 5000) < 5000 * 0.02, `the flows give ${s.shape.natural}/s`);
  assert.equal(s.shape.bucketRate, s.shape.natural * 1.05);
  assert.deepEqual(s.shape.workload, { ...{ nodes: 6, firstNode: 0, recordsPerHalf: 5, exportIntervalS: 5, ipv6Share: 0.1, seed: 1 }, flows: s.shape.flows });
  const capped = shapeOf({ ...base, flows: 2000, rate: 50 });
  assert.ok(capped.ok);
  assert.equal(capped.shape.bucketRate, 50);
  assert.equal(shapeOf({ ...base, flows: 10, rate: 5000 }).ok, false);
});
