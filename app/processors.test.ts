import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceConfigOf } from './testing/service-config.js';
import { readConfig } from '../lib/config/load.js';
import { processorThreads } from './processors.js';
import { serviceConfigSchema } from './service-config.js';

test('processor.threads auto: none on one core, one on two, then a core left to the main thread, at most the partitions of flows.raw', () => {
  const auto = serviceConfigOf('{}');
  assert.deepEqual([1, 2, 3, 5, 16].map((cores) => processorThreads(auto, cores)), [0, 1, 2, 4, 4]);
  const eight = serviceConfigOf('log: {topics: {flowsRawPartitions: 8}}');
  assert.deepEqual([1, 2, 16].map((cores) => processorThreads(eight, cores)), [0, 1, 8]);
  assert.equal(processorThreads(serviceConfigOf('processor: {threads: 0}'), 16), 0, '0: in the main thread');
  assert.equal(processorThreads(serviceConfigOf('processor: {threads: 3}'), 2), 3, 'a number is taken as it is');
});

test('processor.threads refuses what is not auto or a count', () => {
  for (const bad of ['-1', 'many', '1.5']) {
    const r = readConfig(serviceConfigSchema, { text: `processor: {threads: ${bad}}`, env: {} });
    assert.equal(r.ok, false, bad);
    assert.ok(r.diagnostics.some((d) => d.path === 'processor.threads'), JSON.stringify(r.diagnostics));
  }
});
