// A PartitionTask's failures that no one waits for are still told: a transaction in flight when the task
// is closed without a final commit (a rebuild, a lost partition) is counted when it fails.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FlowaggError } from '../lib/errors.js';
import type { Transaction } from '../lib/log/types.js';
import { componentLogger } from '../lib/telemetry/logger.js';
import { FlowRecordScanner } from '../schemas/flow-record-scanner.js';
import { processorMetrics } from './metrics.js';
import { PartitionTask } from './task.js';
import { flowRecordValue } from './testing/fakes.js';
import { ProxyWork } from './work.js';

const CODE = 'FLOWAGG_ERR_TEST_COMMIT_AFTER_CLOSE';
const failures = async () => (await processorMetrics.commitFailures.get()).values.find((v) => v.labels.reason === CODE)?.value ?? 0;

test('a commit in flight when the task closes fails: counted, and close() still settles', async () => {
  const logger = componentLogger('task-test');
  let failCommit: (err: unknown) => void = () => {};
  const txn: Transaction = {
    send: async () => {},
    sendOffsets: async () => {},
    abort: async () => {},
    commit: () => new Promise<void>((_, reject) => (failCommit = reject)),
  };
  const producer = { transactionalId: 'task-test', begin: async () => txn, close: async () => {} };
  const work = new ProxyWork({ scanner: new FlowRecordScanner(), metadata: { metadata: undefined, podLabels: false, includeK8sUIDs: false }, framing: { kind: 'single-object' }, logger, budget: 100 });
  const settings = { groupId: 'g', inputTopic: 'flows.raw', outputTopic: 'flows.processed', changelogTopic: 'processor.state', commitRecords: 1000, commitIntervalMs: 1000, checkpointIntervalMs: 0, checkpointRecords: 1000, now: Date.now };
  const task = new PartitionTask(0, work, producer, txn, 0, 0, settings, logger);
  const value = flowRecordValue({ src: '10.0.0.1', dst: '10.0.0.2', sport: 1, dport: 80, proto: 6, start: 990, end: 1000, exportTime: 1000, flowType: 1 });
  await task.processBatch([{ topic: 'flows.raw', partition: 0, offset: 0, key: null, value, timestamp: 0, headers: {} }]);
  await task.commit();
  const before = await failures();
  const closed = task.close(false);
  failCommit(new FlowaggError(CODE, 'the coordinator went away'));
  await closed;
  assert.equal(await failures(), before + 1);
  assert.ok(task.failed, 'the failure is kept on the task');
});
