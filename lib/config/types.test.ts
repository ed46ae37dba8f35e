import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byteSize, duration, formatDuration, formatSize, parseDuration } from './types.js';

test('Go durations parse to milliseconds', () => {
  assert.equal(parseDuration('90s'), 90_000);
  assert.equal(parseDuration('1m30s'), 90_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('2h'), 7_200_000);
  assert.equal(parseDuration('1.5s'), 1500);
  assert.equal(parseDuration('90'), undefined);
  assert.equal(parseDuration('s'), undefined);
  assert.equal(parseDuration('10 s'), undefined);
});

test('durations and sizes format back to text that parses to the same value', () => {
  for (const ms of [0, 5, 1000, 1500, 60_000, 90_000, 3_600_000, 7 * 24 * 3_600_000, 0.001]) {
    assert.equal(duration.parse(formatDuration(ms)), ms, `${ms} ms as ${formatDuration(ms)}`);
  }
  assert.equal(formatDuration(90_000), '1m30s');
  assert.equal(formatSize(64 * 1024 * 1024), '64MiB');
  assert.equal(formatSize(1000), 1000);
  for (const bytes of [0, 1000, 4096, 8 * 1024 * 1024, 3 * 1024 ** 3]) assert.equal(byteSize.parse(formatSize(bytes)), bytes);
});
