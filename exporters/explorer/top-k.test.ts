import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { keyCost, TopK } from './top-k.js';

test('top-k: every count is exact while the keys fit the budget', () => {
  const t = new TopK(1_000_000);
  const truth = new Map<string, number>();
  for (let i = 0; i < 5000; i++) {
    const key = `ns-${i % 37}/pod-${i % 101}`;
    t.add(key, i, 1, 1);
    truth.set(key, (truth.get(key) ?? 0) + i);
  }
  assert.equal(t.floor, 0);
  assert.equal(t.size, truth.size);
  for (const [key, bytes] of truth) assert.deepEqual({ bytes: t.get(key)?.bytes, error: t.get(key)?.error }, { bytes, error: 0 });
});

test('top-k: past the budget, true bytes lie within [bytes − error, bytes] and absent keys are at most the floor', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 10_000 })), { minLength: 1, maxLength: 2000 }), fc.integer({ min: 400, max: 8000 }), (stream, budget) => {
      const t = new TopK(budget);
      const truth = new Map<string, number>();
      for (const [k, w] of stream) {
        t.add(`key-${k}`, w, 1, 1);
        truth.set(`key-${k}`, (truth.get(`key-${k}`) ?? 0) + w);
      }
      assert.ok(t.bytes <= budget, `${t.bytes} bytes held over a budget of ${budget}`);
      for (const [key, bytes] of truth) {
        const e = t.get(key);
        if (e === undefined) assert.ok(bytes <= t.floor, `${key}: ${bytes} absent above the floor ${t.floor}`);
        else assert.ok(e.bytes - e.error <= bytes && bytes <= e.bytes, `${key}: ${bytes} outside [${e.bytes - e.error}, ${e.bytes}]`);
      }
    }),
  );
});

test('top-k: the heavy hitters of a skewed stream survive a flood of one-off keys', () => {
  const t = new TopK(100 * keyCost('one-off-000000'));
  for (let i = 0; i < 100_000; i++) {
    t.add(`one-off-${String(i).padStart(6, '0')}`, 1, 1, 1);
    if (i % 10 === 0) t.add('heavy', 100, 1, 1);
  }
  const heavy = t.get('heavy');
  assert.ok(heavy !== undefined, 'the heavy key is held');
  assert.ok(heavy.bytes - heavy.error <= 1_000_000 && heavy.bytes >= 1_000_000);
  assert.ok(t.size <= 100);
});

test('top-k: a key longer than the whole budget is never held, and the floor covers it', () => {
  const t = new TopK(200);
  t.add('x'.repeat(500), 42, 1, 1);
  assert.equal(t.size, 0);
  assert.equal(t.floor, 42);
});
