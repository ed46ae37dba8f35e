import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SequenceTracker } from './sequence-gaps.js';

test('options records count as data records (RFC 7011 §3.1)', () => {
  const t = new SequenceTracker();
  t.observe('a', 1, 0, 10, 1);
  assert.deepEqual(t.observe('a', 1, 11, 5), { kind: 'in-order' });
});

test('consecutive messages are in order; skipped sequence numbers are lost records', () => {
  const t = new SequenceTracker();
  assert.deepEqual(t.observe('a', 1, 100, 10), { kind: 'start' });
  assert.deepEqual(t.observe('a', 1, 110, 5), { kind: 'in-order' });
  assert.deepEqual(t.observe('a', 1, 115, 0), { kind: 'in-order' }, 'a template-only message does not advance the count');
  assert.deepEqual(t.observe('a', 1, 140, 3), { kind: 'gap', lost: 25 });
  assert.deepEqual(t.observe('a', 1, 143, 1), { kind: 'in-order' });
});

test('streams are separate per session and per observation domain', () => {
  const t = new SequenceTracker();
  t.observe('a', 1, 0, 10);
  t.observe('a', 2, 500, 10);
  t.observe('b', 1, 7, 1);
  assert.deepEqual(t.observe('a', 2, 510, 1), { kind: 'in-order' });
  assert.deepEqual(t.observe('a', 1, 10, 1), { kind: 'in-order' });
  assert.deepEqual(t.observe('b', 1, 8, 1), { kind: 'in-order' });
  assert.equal(t.streams, 3);
  t.forget('a');
  assert.equal(t.streams, 1);
  assert.deepEqual(t.observe('a', 1, 999, 1), { kind: 'start' });
});

test('the counter wraps around 2^32 without a false gap', () => {
  const t = new SequenceTracker();
  t.observe('a', 0, 2 ** 32 - 4, 10);
  assert.deepEqual(t.observe('a', 0, 6, 2), { kind: 'in-order' });
  t.observe('b', 0, 2 ** 32 - 1, 1);
  assert.deepEqual(t.observe('b', 0, 3, 1), { kind: 'gap', lost: 3 });
});

test('a late message is reported as such and does not move the expected number back', () => {
  const t = new SequenceTracker();
  t.observe('a', 0, 0, 10);
  assert.deepEqual(t.observe('a', 0, 10, 10), { kind: 'in-order' });
  assert.deepEqual(t.observe('a', 0, 30, 10), { kind: 'gap', lost: 10 });
  assert.deepEqual(t.observe('a', 0, 20, 10), { kind: 'late', records: 10 });
  assert.deepEqual(t.observe('a', 0, 40, 1), { kind: 'in-order' });
});

test('a jump beyond the reorder window or the largest gap is a counter reset', () => {
  const t = new SequenceTracker({ reorderWindow: 100, maxGap: 1000 });
  t.observe('a', 0, 5000, 1);
  assert.deepEqual(t.observe('a', 0, 0, 1), { kind: 'reset' }, 'exporter restarted from 0');
  assert.deepEqual(t.observe('a', 0, 1, 1), { kind: 'in-order' });
  assert.deepEqual(t.observe('a', 0, 100_000, 1), { kind: 'reset' });
  assert.deepEqual(t.observe('a', 0, 100_001, 1), { kind: 'in-order' });
});

test('after a message whose record count is unknown, the next one starts afresh', () => {
  const t = new SequenceTracker();
  t.observe('a', 0, 0, 10);
  assert.deepEqual(t.observe('a', 0, 10, undefined), { kind: 'in-order' });
  assert.deepEqual(t.observe('a', 0, 37, 2), { kind: 'start' });
  assert.deepEqual(t.observe('a', 0, 39, 2), { kind: 'in-order' });
});

test('an exporter that counts the message\'s own records (softflowd) is recognised at its second message', () => {
  const t = new SequenceTracker();
  assert.deepEqual(t.observe('a', 0, 10, 10), { kind: 'start' });
  assert.deepEqual(t.observe('a', 0, 17, 7), { kind: 'in-order' });
  assert.deepEqual(t.observe('a', 0, 20, 3), { kind: 'in-order' });
  assert.deepEqual(t.observe('a', 0, 30, 5), { kind: 'gap', lost: 5 });
  assert.deepEqual(t.observe('a', 0, 34, 4, 1), { kind: 'in-order' }, 'options records are not counted in this convention');
  assert.deepEqual(t.observe('a', 0, 36, 2), { kind: 'in-order' });
  // A conformant stream whose second message shows a real gap is not switched later.
  const c = new SequenceTracker();
  c.observe('b', 0, 0, 4);
  assert.deepEqual(c.observe('b', 0, 10, 2), { kind: 'gap', lost: 6 });
  assert.deepEqual(c.observe('b', 0, 14, 2), { kind: 'gap', lost: 2 });
});

test('the streams tracked are bounded: the least recently active is forgotten and starts afresh', () => {
  const t = new SequenceTracker({ maxStreams: 2 });
  t.observe('s', 1, 0, 10);
  t.observe('s', 2, 0, 10);
  t.observe('s', 1, 10, 10);
  t.observe('s', 3, 0, 10);
  assert.equal(t.streams, 2);
  assert.equal(t.evicted, 1);
  assert.deepEqual(t.observe('s', 2, 500, 10), { kind: 'start' }, 'domain 2 was forgotten: no false gap');
  assert.deepEqual(t.observe('s', 1, 20, 10), { kind: 'start' }, 'domain 1 was forgotten when 2 came back');
  t.forget('s');
  assert.equal(t.streams, 0);
});
