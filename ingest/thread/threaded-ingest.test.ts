import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ingestConfig } from '../config.js';
import { ingestThread } from './threaded-ingest.js';

test('ingest.thread auto: the main thread below four cores, a thread of its own from four', () => {
  const auto = ingestConfig.parse({});
  assert.deepEqual([1, 2, 3, 4, 16].map((cores) => ingestThread(auto, cores)), [false, false, false, true, true]);
  assert.equal(ingestThread(ingestConfig.parse({ ingest: { thread: true } }), 2), true);
  assert.equal(ingestThread(ingestConfig.parse({ ingest: { thread: false } }), 16), false);
});

test('ingest.thread refuses what is not auto or a boolean', () => {
  for (const bad of [2, 'many']) {
    const issues = ingestConfig.safeParse({ ingest: { thread: bad } }).error?.issues ?? [];
    assert.ok(issues.some((i) => i.path.join('.') === 'ingest.thread'), `${bad}: ${JSON.stringify(issues)}`);
  }
});
