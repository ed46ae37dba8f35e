import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rootLogger } from './logger.js';
import { currentVerbosity, pinoLevelOf, setVerbosity } from './log-level.js';

test("klog verbosities map to the logger's levels: 0-3 info, 4 debug, 5 and above trace", () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 10].map(pinoLevelOf), ['info', 'info', 'info', 'info', 'debug', 'trace', 'trace']);
});

test('setting a verbosity changes every component logger at once, and reads back as set', (t) => {
  const before = rootLogger.level;
  t.after(() => (rootLogger.level = before));
  const child = rootLogger.child({ component: 'x' });
  assert.deepEqual(setVerbosity('4'), { ok: true, verbosity: 4 });
  assert.equal(child.level, 'debug');
  assert.equal(currentVerbosity(), 4);
  assert.deepEqual(setVerbosity('2'), { ok: true, verbosity: 2 });
  assert.equal(child.level, 'info');
  assert.equal(currentVerbosity(), 2, 'the number set, though 0-3 are all info');
  rootLogger.level = 'trace';
  assert.equal(currentVerbosity(), 5, 'a level set elsewhere reads as its verbosity');
  rootLogger.level = 'warn';
  assert.equal(currentVerbosity(), 0);
});

test('a verbosity that is not a non-negative integer is refused', () => {
  for (const bad of ['', 'x', '-1', '1.5', '4294967296']) {
    const r = setVerbosity(bad);
    assert.equal(r.ok, false, bad);
    assert.match(r.ok ? '' : r.message, /is not a log verbosity \(an integer 0\.\.2147483647, as klog's -v\)/);
  }
});
