import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from './manual-clock.js';

test('a manual clock runs each periodic task as often as it falls due, in time order, at its time', () => {
  const clock = new ManualClock(1000);
  const runs: string[] = [];
  const stopA = clock.every(100, () => runs.push(`a@${clock.now()}`));
  clock.every(250, () => runs.push(`b@${clock.now()}`));
  clock.advance(99);
  assert.deepEqual(runs, []);
  clock.advance(201);
  assert.deepEqual(runs, ['a@1100', 'a@1200', 'b@1250', 'a@1300']);
  assert.equal(clock.now(), 1300);
  stopA();
  clock.advance(250);
  assert.deepEqual(runs.slice(4), ['b@1500']);
  assert.equal(clock.tasks, 1);
});
