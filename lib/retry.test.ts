import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FlowaggError } from './errors.js';
import { Backoff, retry } from './retry.js';

test('backoff doubles up to its cap; jitter shortens each delay by at most its share', () => {
  const plain = new Backoff({ initialMs: 100, maxMs: 1000, jitter: 0 });
  assert.deepEqual([1, 2, 3, 4, 5, 6].map(() => plain.next()), [100, 200, 400, 800, 1000, 1000]);
  plain.reset();
  assert.equal(plain.next(), 100);
  const lowest = new Backoff({ initialMs: 100, maxMs: 1000 }, () => 1);
  assert.deepEqual([lowest.next(), lowest.next()], [50, 100]);
  const drawn = new Backoff({ initialMs: 100, maxMs: 1000 });
  for (let i = 0; i < 20; i++) {
    const ms = drawn.next();
    assert.ok(ms >= Math.min(1000, 100 * 2 ** i) / 2 && ms <= Math.min(1000, 100 * 2 ** i), `delay ${i}: ${ms}`);
  }
});

const policy = { initialMs: 1, maxMs: 2 };

test('retry tries again while the error is retriable, and stops at one that is not', async () => {
  const tried: number[] = [];
  const outcome = await retry(async (n) => {
    tried.push(n);
    if (n < 3) throw new FlowaggError('FLOWAGG_ERR_TEST_RETRY', 'busy', { retriable: true });
    throw new FlowaggError('FLOWAGG_ERR_TEST_RETRY', 'refused');
  }, { policy });
  assert.deepEqual(tried, [1, 2, 3]);
  assert.equal(outcome.kind, 'refused');
  assert.equal(outcome.kind === 'refused' && (outcome.error as Error).message, 'refused');
});

test('retry returns the value; a caller may retry errors the flag does not mark', async () => {
  const retried: number[] = [];
  const outcome = await retry(async (n) => {
    if (n === 1) throw new Error('plain');
    return 'ok';
  }, { policy, retriable: () => true, onRetry: (_err, _ms, attempt) => retried.push(attempt) });
  assert.deepEqual(outcome, { kind: 'done', value: 'ok' });
  assert.deepEqual(retried, [1]);
});

test('an abort ends the wait', async () => {
  const abort = new AbortController();
  const outcome = retry(async () => {
    throw new FlowaggError('FLOWAGG_ERR_TEST_RETRY', 'busy', { retriable: true });
  }, { policy: { initialMs: 60_000, maxMs: 60_000 }, signal: abort.signal });
  abort.abort();
  assert.equal((await outcome).kind, 'aborted');
});
