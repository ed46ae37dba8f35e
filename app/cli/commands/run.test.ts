import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { QUICK_START_CONFIG } from './run.js';
import { loadServiceConfig } from '../../serve.js';

const args = (values: Record<string, string> = {}) => ({ values, positionals: [] });

test('flowagg run without a configuration file writes the flow log as JSON lines under ./data; an environment variable still turns it off', () => {
  const c = loadServiceConfig(args(), {}, QUICK_START_CONFIG);
  assert.deepEqual([c.flowLogger.enable, c.flowLogger.path, c.flowLogger.recordFormat], [true, 'data/flows.log', 'JSON']);
  assert.equal(c.log.embedded.dir, './data/log', 'beside the log');
  process.env.FLOWAGG_CFG_FLOWLOGGER_ENABLE = 'false';
  try {
    assert.equal(loadServiceConfig(args(), {}, QUICK_START_CONFIG).flowLogger.enable, false);
  } finally {
    delete process.env.FLOWAGG_CFG_FLOWLOGGER_ENABLE;
  }
});

test('flowagg run with a configuration file keeps Antrea\'s flowLogger defaults: off, CSV', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'flowagg-run-cli-')), 'flow-aggregator.conf');
  writeFileSync(file, 'activeFlowRecordTimeout: 60s\n');
  const c = loadServiceConfig(args({ config: file }), {}, QUICK_START_CONFIG);
  assert.deepEqual([c.flowLogger.enable, c.flowLogger.recordFormat], [false, 'CSV']);
});
