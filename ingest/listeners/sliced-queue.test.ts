import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { SlicedQueue } from './sliced-queue.js';

test('queued work runs in slices, letting the event loop turn between them, in order', async () => {
  const done: number[] = [];
  let turns = 0;
  const queue = new SlicedQueue<number>({ maxBytes: 1e9, sliceMs: 5 }, (i) => {
    const until = performance.now() + 2;
    while (performance.now() < until);
    done.push(i);
    return undefined;
  });
  for (let i = 0; i < 20; i++) assert.equal(queue.push(i, 1), true);
  while (done.length < 20) {
    await turn();
    turns++;
  }
  assert.deepEqual(done, Array.from({ length: 20 }, (_, i) => i));
  assert.ok(turns >= 5, `${turns} turns of the event loop while 40 ms of work ran`);
  assert.equal(queue.bytes, 0);
});

test('a full queue refuses new items', () => {
  const queue = new SlicedQueue<string>({ maxBytes: 10, sliceMs: 5 }, () => undefined);
  assert.equal(queue.push('a', 6), true);
  assert.equal(queue.push('b', 6), false);
  assert.equal(queue.push('c', 4), true);
});

test('an item handled in parts runs its rest before the next item, and holds its bytes until done', async () => {
  const done: string[] = [];
  const queue: SlicedQueue<string> = new SlicedQueue<string>({ maxBytes: 10, sliceMs: 5 }, (item) => {
    done.push(item);
    if (item.length > 1) {
      assert.equal(queue.bytes, 10, 'the item\'s bytes stay queued while parts of it remain');
      return item.slice(1);
    }
    return undefined;
  });
  assert.equal(queue.push('abc', 6), true);
  assert.equal(queue.push('x', 4), true);
  while (done.length < 4) await turn();
  assert.deepEqual(done, ['abc', 'bc', 'c', 'x']);
  assert.equal(queue.bytes, 0);
});
