import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceConfigOf } from '../../testing/service-config.js';
import { readConfig } from '../../../lib/config/load.js';
import { serviceConfigSchema } from '../../service-config.js';
import { exportThreads } from './threaded-runner.js';

test('exporters.threads auto: the main thread on one core, a thread each from two', () => {
  const auto = serviceConfigOf('{}');
  assert.deepEqual([1, 2, 3, 4, 16].map((cores) => exportThreads(auto, cores)), [false, true, true, true, true]);
  assert.equal(exportThreads(serviceConfigOf('exporters: {threads: true}'), 1), true);
  assert.equal(exportThreads(serviceConfigOf('exporters: {threads: false}'), 16), false);
});

test('exporters.threads refuses what is not auto or a boolean', () => {
  for (const bad of ['2', 'many', 'yes please']) {
    const r = readConfig(serviceConfigSchema, { text: `exporters: {threads: ${bad}}`, env: {} });
    assert.equal(r.ok, false, bad);
    assert.ok(r.diagnostics.some((d) => d.path === 'exporters.threads'), JSON.stringify(r.diagnostics));
  }
});
