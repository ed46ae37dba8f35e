import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DecisionCache } from './decision-cache.js';

test('an answer is kept for its TTL, then asked again', async () => {
  let now = 0;
  const cache = new DecisionCache<string>({ ttlMs: 10_000, maxEntries: 10, now: () => now });
  assert.equal(await cache.remember('k', Promise.resolve('allowed')), 'allowed');
  const kept = cache.lookup('k');
  assert.equal(kept.kind, 'cached');
  assert.equal(kept.kind === 'cached' && (await kept.answer), 'allowed');
  now = 9_999;
  assert.equal(cache.lookup('k').kind, 'cached');
  now = 10_000;
  assert.equal(cache.lookup('k').kind, 'miss');
});

test('callers asking meanwhile share the review under way; a failed review is not kept', async () => {
  const cache = new DecisionCache<string>({ ttlMs: 10_000, maxEntries: 10 });
  let fail: (err: Error) => void = () => {};
  const review = cache.remember('k', new Promise<string>((_, reject) => (fail = reject)));
  const shared = cache.lookup('k');
  assert.equal(shared.kind, 'cached');
  fail(new Error('Kubernetes unreachable'));
  await assert.rejects(review, /unreachable/);
  await assert.rejects(shared.kind === 'cached' ? shared.answer : Promise.resolve(), /unreachable/);
  assert.equal(cache.lookup('k').kind, 'miss');
});

test('at most maxEntries answers are kept: the oldest goes first', async () => {
  const cache = new DecisionCache<number>({ ttlMs: 10_000, maxEntries: 3 });
  for (let i = 0; i < 5; i++) await cache.remember(`k${i}`, Promise.resolve(i));
  assert.equal(cache.size, 3);
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => cache.lookup(`k${i}`).kind), ['miss', 'miss', 'cached', 'cached', 'cached']);
});
