import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PartitionClock } from './clock.js';

const S = 1000;
const clock = (over: Partial<ConstructorParameters<typeof PartitionClock>[0]> = {}) =>
  new PartitionClock({ idleMs: 15 * S, maxLagMs: 60 * S, maxAheadMs: 60 * S, maxSources: 100, ...over });

test('the slowest active source holds the partition\'s time; the others cannot push it ahead', () => {
  const c = clock({ maxAheadMs: 600 * S });
  c.observe('a', 1000 * S, 1000 * S);
  c.observe('b', 1000 * S, 1000 * S);
  // a's stream is read far faster than b's: a is at 1200 s while b, read at the same moment, is at 1001 s.
  c.observe('a', 1200 * S, 1001 * S);
  c.observe('b', 1001 * S, 1001 * S);
  assert.equal(c.now, 1001 * S);
  // Time goes on with the receive clock from b's last record, until b is heard from again.
  c.tick(1005 * S);
  assert.equal(c.now, 1005 * S);
  c.observe('b', 1100 * S, 1006 * S);
  assert.equal(c.now, 1100 * S, 'b caught up: the minimum is a\'s now, then b\'s');
});

test('a source silent for idleMs no longer holds the time back; the receive clock moves it while nothing comes', () => {
  const c = clock({ idleMs: 10 * S });
  c.observe('a', 500 * S, 1000 * S); // 500 s behind: held at the lag bound, 60 s behind the receive clock
  c.observe('b', 1000 * S, 1000 * S);
  assert.equal(c.now, 940 * S);
  c.observe('b', 1005 * S, 1005 * S);
  assert.equal(c.now, 945 * S);
  c.observe('b', 1011 * S, 1011 * S); // a silent for 11 s
  assert.equal(c.now, 1011 * S);
  c.tick(1030 * S); // nothing active: time goes on from where b left it, at the receive clock's pace
  assert.equal(c.now, 1030 * S);
});

test('a source whose clock is far ahead counts at its receive time plus maxAheadMs', () => {
  const c = clock({ maxAheadMs: 5 * S });
  assert.equal(c.observe('a', 9999 * S, 1000 * S), 1005 * S);
  assert.equal(c.now, 1005 * S);
});

test('a source first seen behind the time cannot move it back; its records are late past the allowed lateness', () => {
  const c = clock({ maxLagMs: 10 * S });
  c.observe('a', 1000 * S, 1000 * S);
  const t = c.observe('b', 985 * S, 1000 * S);
  assert.equal(t, 985 * S);
  assert.equal(c.now, 1000 * S);
  assert.equal(c.isLate(t), true);
  assert.equal(c.isLate(990 * S), false);
  c.observe('a', 1010 * S, 1010 * S);
  assert.equal(c.now, 1000 * S, 'b, 15 s behind, holds the time at most maxLagMs behind the receive clock');
});

test('taking a record twice changes nothing; restored from its changes, the clock goes on the same', () => {
  const feed = [['a', 10, 10], ['b', 8, 10], ['a', 30, 12], ['c', 12, 13], ['b', 14, 40], ['a', 31, 41]] as const;
  const straight = clock({ idleMs: 5 * S, maxLagMs: 20 * S });
  const restoredAt = clock({ idleMs: 5 * S, maxLagMs: 20 * S });
  let copy = restoredAt;
  const changes = new Map<string, [number, number] | null>();
  feed.forEach(([source, t, r], i) => {
    straight.observe(source, t * S, r * S);
    straight.observe(source, t * S, r * S);
    copy.observe(source, t * S, r * S);
    const { changed, forgotten } = copy.takeChanges();
    for (const s of changed) changes.set(s.id, [s.eventTime, s.receivedAt]);
    for (const id of forgotten) changes.set(id, null);
    if (i === 3) {
      const next = clock({ idleMs: 5 * S, maxLagMs: 20 * S });
      for (const [id, v] of changes) if (v !== null) next.restoreSource(id, v[0], v[1]);
      next.restored(copy.now, copy.received);
      copy = next;
    }
    assert.equal(copy.now, straight.now, `after record ${i}`);
  });
  assert.equal(straight.sourceCount, 2, 'c, silent for idleMs + maxLagMs, is forgotten');
});

test('past maxSources the source silent longest is forgotten', () => {
  const c = clock({ maxSources: 2 });
  c.observe('a', 1 * S, 1 * S);
  c.observe('b', 2 * S, 2 * S);
  c.observe('c', 3 * S, 3 * S);
  assert.equal(c.sourceCount, 2);
  assert.deepEqual(c.takeChanges().forgotten, ['a']);
});
