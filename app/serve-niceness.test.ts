import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutNiceness } from './serve.js';
import { serviceConfigSchema } from './service-config.js';

test('a process without ingest runs its processor and exporter threads at its own priority; the config it was given is left as it was', () => {
  const config = serviceConfigSchema.parse({ processor: { niceness: 7 } });
  const plain = withoutNiceness(config);
  assert.deepEqual([plain.processor.niceness, plain.exporters.niceness], [0, 0]);
  assert.deepEqual([config.processor.niceness, config.exporters.niceness], [7, 10]);
  assert.deepEqual({ ...plain.processor, niceness: 7 }, config.processor, 'nothing else changes');
});
