import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slicesUnder } from './producer.js';

const message = (bytes: number) => ({ key: null, value: Buffer.alloc(bytes) });

test('a send is cut so that no partition gets more than the limit in one request, keeping record order', () => {
  // 10 records of ~132 bytes: 6 on partition 0, 4 on partition 1; at most 3 records of one partition per slice.
  const partitions = [0, 0, 1, 0, 1, 0, 0, 1, 1, 0];
  const placed = { messages: partitions.map(() => message(100)), partitions };
  const slices = slicesUnder(placed, 3 * 132);
  assert.deepEqual(slices.map((s) => s.partitions), [[0, 0, 1, 0, 1], [0, 0, 1, 1, 0]]);
  assert.deepEqual(slices.flatMap((s) => s.messages), placed.messages, 'every record once, in order');
  for (const s of slices) for (const p of [0, 1]) assert.ok(s.partitions.filter((x) => x === p).length <= 3);
});

test('a send under the limit is one slice, and a record above it travels alone', () => {
  const small = { messages: [message(10), message(10)], partitions: [0, 1] };
  assert.deepEqual(slicesUnder(small, 1000), [small]);
  const big = { messages: [message(10), message(5000), message(10)], partitions: [0, 0, 0] };
  assert.deepEqual(slicesUnder(big, 1000).map((s) => s.messages.map((m) => m.value?.length)), [[10], [5000], [10]]);
});
