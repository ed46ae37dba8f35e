// Issue 15's fault-injection test for both log backends (the embedded log in
// processor/failed-commit.test.ts, Kafka in processor/failed-commit.functional.test.ts): the input
// processed once without a failure and then, by other groups, with a partition's Nth commit failing
// (failing-log.ts). A failed commit rebuilds the task from its changelog and committed offset; the
// outputs must still be the reference's exactly. Failing the first commit is the case that matters:
// nothing was ever committed then, so the rebuilt task must start where the group starts, not wherever
// the consumer had got to.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { MessageLog } from '../../lib/log/types.js';
import { assertSameOutputs, type Backend, INPUT_PARTITIONS, inputRecords, type OutputRecord, processInProcess, readOutputs, runNames, sendAll } from './exactly-once.js';
import { processorMetrics } from '../metrics.js';
import { failingNthCommit } from './failing-log.js';

const replayed = async () => (await processorMetrics.replayedOffsets.get()).values[0]?.value ?? 0;

/** On one partition, as in the issue: its task gets batch after batch, so the consumer is past some when a commit's failure shows. */
const RECORDS = 40_000;
const PARTITION = 0;
/** The first commit, the first after one succeeded, and one well into the input (there are at least RECORDS / commitRecords = 8). */
const FAILING_COMMITS = [1, 2, 5];

export function failedCommitSuite(backend: Pick<Backend, 'name' | 'open' | 'timeoutMs'>): void {
  describe(`processor, a failed commit, ${backend.name}`, () => {
    let log: MessageLog;
    let input: string;
    let expected: OutputRecord[];

    before(async () => {
      log = await backend.open();
      input = runNames('failing-input').output;
      await log.admin().createTopics([{ topic: input, partitions: INPUT_PARTITIONS }]);
      await sendAll(log, input, inputRecords(RECORDS).map((r) => ({ ...r, partition: PARTITION })));
      const reference = runNames('no-failure');
      await processInProcess(log, input, reference, backend.timeoutMs, true);
      expected = await readOutputs(log, reference.output);
      assert.ok(expected.length > RECORDS / 20, `outputs: ${expected.length}`);
    });
    after(() => log?.close());

    for (const n of FAILING_COMMITS) {
      test(`${RECORDS.toLocaleString('en-US')} records on one partition, its commit ${n} fails: the outputs of the run without the failure, none twice`, async () => {
        const failing = failingNthCommit(log, n);
        const names = runNames(`commit-${n}-fails`);
        const replayedBefore = await replayed();
        await processInProcess(failing, input, names, backend.timeoutMs, true);
        assert.equal(failing.failedCommits, 1, 'one commit failed');
        // Commit 1 takes a checkpoint, the next ones (well within checkpointInterval) do not: after the 5th
        // failed, the state is the checkpoint's, and the input since it is read again.
        if (n === 5) assert.ok((await replayed()) > replayedBefore, 'the input since the checkpoint was read again');
        assertSameOutputs(await readOutputs(log, names.output), expected);
      });
    }

    // Issue 21's chaos test: a processor fenced on a partition that the rebalance then left with it never
    // opened it again (no assignment came), and the partition stood still.
    test('its commit 2 is fenced and the partition stays assigned: the task is opened again, the outputs those of the run without the failure', async () => {
      const failing = failingNthCommit(log, 2, 'fenced');
      const names = runNames('commit-2-fenced');
      await processInProcess(failing, input, names, backend.timeoutMs, true);
      assert.equal(failing.failedCommits, 1, 'one commit failed');
      assertSameOutputs(await readOutputs(log, names.output), expected);
    });
  });
}
