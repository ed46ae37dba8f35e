import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveReset } from './offset-reset.js';

const partitions = [
  { partition: 0, low: 10, high: 100 },
  { partition: 1, low: 0, high: 5 },
];
const committed = (p: number) => (p === 0 ? 50 : null);

test('earliest and latest take each partition to its first and end offsets', () => {
  assert.deepEqual(resolveReset({ to: 'earliest' }, partitions, committed), [
    { partition: 0, offset: 10 },
    { partition: 1, offset: 0 },
  ]);
  assert.deepEqual(resolveReset({ to: 'latest' }, partitions, committed), [
    { partition: 0, offset: 100 },
    { partition: 1, offset: 5 },
  ]);
});

test('an explicit offset is clamped into what the partition still holds', () => {
  assert.deepEqual(resolveReset({ to: 'offset', offset: 3 }, partitions, committed), [
    { partition: 0, offset: 10 },
    { partition: 1, offset: 3 },
  ]);
});

test('a shift counts from the committed offset, or from the first offset when none, and is clamped', () => {
  assert.deepEqual(resolveReset({ shiftBy: -20 }, partitions, committed), [
    { partition: 0, offset: 30 },
    { partition: 1, offset: 0 },
  ]);
  assert.deepEqual(resolveReset({ shiftBy: 1000 }, partitions, committed), [
    { partition: 0, offset: 100 },
    { partition: 1, offset: 5 },
  ]);
});

test('a datetime uses the offset found by time, and the log end where no record is that recent', () => {
  assert.deepEqual(
    resolveReset({ to: 'datetime', timestamp: 1 }, partitions, committed, (p) => (p === 0 ? 42 : undefined)),
    [
      { partition: 0, offset: 42 },
      { partition: 1, offset: 5 },
    ],
  );
});
