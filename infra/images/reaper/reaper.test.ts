import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDuration, parseFilter } from './reaper.js';

test('a filter line is a query string of Docker filters', () => {
  assert.deepEqual(parseFilter('label=org.testcontainers.session-id=abc\r'), { label: ['org.testcontainers.session-id=abc'] });
  assert.deepEqual(parseFilter('label=a%3Db&label=c&name=x'), { label: ['a=b', 'c'], name: ['x'] });
  assert.equal(parseFilter(''), undefined);
  assert.equal(parseFilter('=x'), undefined);
});

test("Ryuk's durations", () => {
  assert.equal(parseDuration('10s', 1), 10_000);
  assert.equal(parseDuration('250ms', 1), 250);
  assert.equal(parseDuration('2m', 1), 120_000);
  assert.equal(parseDuration('3', 1), 3000);
  assert.equal(parseDuration(undefined, 42), 42);
  assert.equal(parseDuration('soon', 42), 42);
});
