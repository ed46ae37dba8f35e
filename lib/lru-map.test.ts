import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LruMap } from './lru-map.js';

test('entries stay in use order: set and touch make an entry the newest, shift takes the oldest', () => {
  const m = new LruMap<string, number>();
  m.set('a', 1).set('b', 2).set('c', 3);
  assert.equal(m.touch('a'), true);
  assert.equal(m.touch('zz'), false);
  m.set('b', 20);
  assert.deepEqual([...m.entries()], [['c', 3], ['a', 1], ['b', 20]]);
  assert.deepEqual(m.oldest(), ['c', 3]);
  assert.deepEqual(m.shift(), ['c', 3]);
  assert.equal(m.delete('b'), true);
  assert.deepEqual([...m.keys()], ['a']);
  assert.equal(m.get('a'), 1);
  m.clear();
  assert.equal(m.size, 0);
  assert.equal(m.shift(), undefined);
});

test('deleting while iterating visits every other entry once', () => {
  const m = new LruMap<number, number>();
  for (let i = 0; i < 10; i++) m.set(i, i);
  const seen: number[] = [];
  for (const [k] of m.entries()) {
    seen.push(k);
    if (k % 2 === 0) m.delete(k);
  }
  assert.deepEqual(seen, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual([...m.keys()], [1, 3, 5, 7, 9]);
});

test('a large map used as a queue gives its entries back in order', () => {
  const m = new LruMap<number, number>();
  for (let i = 0; i < 65_536; i++) m.set(i, i);
  for (let i = 65_536; i < 265_536; i++) {
    assert.equal(m.shift()![0], i - 65_536);
    m.set(i, i);
  }
  assert.equal(m.size, 65_536);
});
