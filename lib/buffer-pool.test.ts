import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BufferPool } from './buffer-pool.js';

test('a buffer given back is the next one taken, cut to the size asked for', () => {
  const pool = new BufferPool(1024, 2, 64);
  const a = pool.take(1000);
  assert.equal(a.length, 1000);
  pool.give(a);
  const b = pool.take(100);
  assert.equal(b.buffer, a.buffer);
  assert.equal(b.length, 100);
  assert.notEqual(pool.take(100).buffer, a.buffer, 'taken once, not twice');
});

test('sizes beyond the pool\'s, or below its minimum, are allocated apart and not kept', () => {
  const pool = new BufferPool(1024, 2, 64);
  for (const size of [2048, 10]) {
    const buf = pool.take(size);
    assert.equal(buf.length, size);
    pool.give(buf);
    assert.notEqual(pool.take(512).buffer, buf.buffer, `${size} bytes`);
  }
});

test('at most maxFree buffers wait in the pool', () => {
  const pool = new BufferPool(1024, 2);
  const taken = [pool.take(1024), pool.take(1024), pool.take(1024)];
  for (const b of taken) pool.give(b);
  const again = new Set([pool.take(1024), pool.take(1024), pool.take(1024)].map((b) => b.buffer));
  assert.equal(taken.filter((b) => again.has(b.buffer)).length, 2);
});
