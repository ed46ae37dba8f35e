import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StreamDeadlines } from './deadlines.js';

const limits = { firstMessageMs: 100, partialMessageMs: 50, idleMs: 1000 };

test('a connection that never completes a message expires after the first-message limit', () => {
  const d = new StreamDeadlines(limits, 0);
  d.received(10);
  d.progressed(10, 0, true);
  assert.equal(d.expired(60), undefined);
  assert.equal(d.expired(61)?.kind, 'partial_message');
  const idle = new StreamDeadlines(limits, 0);
  assert.equal(idle.expired(100), undefined);
  assert.equal(idle.expired(101)?.kind, 'first_message');
});

test('each new partial message gets its own limit, and a complete stream only the idle one', () => {
  const d = new StreamDeadlines(limits, 0);
  d.received(10);
  d.progressed(10, 1, true);
  d.received(40);
  d.progressed(40, 0, true);
  assert.equal(d.expired(55), undefined, 'the partial message began at 10 ms');
  d.received(55);
  d.progressed(55, 2, false);
  assert.equal(d.expired(1000), undefined);
  assert.equal(d.expired(1056)?.kind, 'idle');
});

test('time paused by backpressure does not count', () => {
  const d = new StreamDeadlines(limits, 0);
  d.received(0);
  d.progressed(0, 1, true);
  d.resumed(500);
  assert.equal(d.expired(540), undefined);
  assert.equal(d.expired(551)?.kind, 'partial_message');
});
