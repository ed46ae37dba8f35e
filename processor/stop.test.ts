// The processor's stop() when its final commits fail: the failure is told (log, metric, a rejected stop),
// not swallowed, and the processor is stopped all the same.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isFlowaggError } from '../lib/errors.js';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { until } from '../lib/testing/until.js';
import { processorConfig } from './config.js';
import { PROCESSOR_FINAL_COMMIT } from './errors.js';
import { createProcessor } from './index.js';
import { processorMetrics } from './metrics.js';
import { failingNthCommit, INJECTED_COMMIT_FAILURE } from './testing/failing-log.js';
import { produceSpecs } from './testing/fakes.js';

const failures = async () => (await processorMetrics.commitFailures.get()).values.find((v) => v.labels.reason === INJECTED_COMMIT_FAILURE)?.value ?? 0;

test('a final commit that fails on stop() rejects the stop naming the partition, counts the failure, and the processor is stopped', async (t) => {
  const log = await openEmbeddedLog({ dir: mkdtempSync(join(tmpdir(), 'flowagg-processor-stop-')), fsync: { policy: 'interval' } });
  t.after(() => log.close());
  await log.admin().createTopics([{ topic: 'flows.raw', partitions: 1 }]);
  // No commit before the stop: the final commit is each transactional id's first, the one made to fail.
  const cfg = processorConfig.parse({ mode: 'Proxy', processor: { commitInterval: 3_600_000 }, log: { topics: { flowsRawPartitions: 1, flowsProcessedPartitions: 1 } } });
  const processor = createProcessor(cfg, { log: failingNthCommit(log, 1) });
  await processor.start();
  const specs = Array.from({ length: 10 }, (_, i) => ({ src: '10.0.0.1', dst: '10.0.0.2', sport: 1000 + i, dport: 80, proto: 6, start: 990, end: 1000, exportTime: 1000, flowType: 1 }));
  await produceSpecs(log, 'flows.raw', specs);
  await until('the processor to take every record', () => processor.stats().records === specs.length);
  const before = await failures();

  await assert.rejects(processor.stop(), (err) => isFlowaggError(err, PROCESSOR_FINAL_COMMIT) && /partitions 0 of flows.raw/.test(err.message));
  assert.equal(processor.state, 'stopped');
  assert.equal(await failures(), before + 1);
  assert.equal(processor.stats().outputs, 0, 'nothing was committed');
});
