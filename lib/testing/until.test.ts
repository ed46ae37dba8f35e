import assert from 'node:assert/strict';
import { test } from 'node:test';
import { until, untilHolds } from './until.js';

test('until resolves with the first value that is not false, null or undefined; a throwing check counts as not yet', async () => {
  let calls = 0;
  const value = await until('the third call', () => {
    calls++;
    if (calls === 1) throw new Error('not there');
    return calls === 3 ? 0 : undefined;
  }, { intervalMs: 1 });
  assert.deepEqual([value, calls], [0, 3]);
});

test('until says on timeout what it waited for and the check\'s last error', async () => {
  await assert.rejects(until('the moon', () => {
    throw new Error('cloudy');
  }, { timeoutMs: 20, intervalMs: 1 }), { message: 'timed out after 20 ms waiting for the moon (last error: cloudy)' });
});

test('untilHolds resolves with the accepted value, false included, and names the last value on timeout', async () => {
  let n = 0;
  assert.equal(await untilHolds('the third probe', () => ++n, (v) => v === 3, { intervalMs: 1 }), 3);
  assert.equal(await untilHolds('a false', () => false, (v) => !v), false);
  await assert.rejects(untilHolds('ten', () => ({ count: 3 }), (v) => v.count === 10, { timeoutMs: 20, intervalMs: 1 }), {
    message: 'timed out after 20 ms waiting for ten; last value: { count: 3 }',
  });
});
