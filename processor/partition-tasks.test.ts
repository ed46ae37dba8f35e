// The tasks stay equal to the assignment whatever order opens, revocations, rebuilds and the periodic
// check come in: an open that takes longer than the partition stays here leaves no task behind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FlowaggError } from '../lib/errors.js';
import { LOG_PRODUCER_FENCED } from '../lib/log/errors.js';
import { componentLogger } from '../lib/telemetry/logger.js';
import { PartitionTasks } from './partition-tasks.js';
import type { PartitionTask } from './task.js';

interface FakeTask {
  readonly partition: number;
  readonly serial: number;
  failure: unknown;
  /** How each close() was asked: true commits first. */
  readonly closes: boolean[];
}

/** PartitionTasks over fake tasks, whose opens finish when the test says so. */
function harness(assigned: number[]) {
  const opened: FakeTask[] = [];
  const waiting: (() => void)[] = [];
  let serial = 0;
  const closed: FakeTask[] = [];
  const tasks = new PartitionTasks({
    open: async (partition) => {
      await new Promise<void>((resolve) => waiting.push(resolve));
      const task: FakeTask = { partition, serial: serial++, failure: undefined, closes: [] };
      opened.push(task);
      return Object.assign(task, { close: async (commit: boolean) => void task.closes.push(commit) }) as unknown as PartitionTask;
    },
    assigned: () => assigned,
    closed: (task) => closed.push(task as unknown as FakeTask),
    logger: componentLogger('partition-tasks-test'),
  });
  /** Until an open is under way. */
  async function opening(): Promise<void> {
    while (waiting.length === 0) await new Promise((r) => setTimeout(r, 5));
  }
  /** Lets the oldest open under way finish. */
  async function finishOpen(): Promise<void> {
    await opening();
    waiting.shift()!();
  }
  /** Assigns each partition and lets its open finish. */
  async function assignAll(...partitions: number[]): Promise<void> {
    for (const p of partitions) {
      const assigning = tasks.assign(p);
      await finishOpen();
      await assigning;
    }
  }
  return { tasks, opened, closed, opening, finishOpen, assignAll, assigned };
}

test('a partition revoked while its task opens: the open closes what it opened, and no task is left', async () => {
  const h = harness([0]);
  const assigning = h.tasks.assign(0);
  h.assigned.length = 0; // the group moved partition 0 away while its state was restored
  const revoking = h.tasks.revoke(0);
  await h.finishOpen();
  await Promise.all([assigning, revoking]);
  assert.equal(h.tasks.size, 0);
  assert.deepEqual(h.opened[0]!.closes, [false], 'closed once, without a commit: the partition is another instance\'s now');
});

test('a rebuild whose open ends after the partition moved leaves no task (the zombie the chaos run found)', async () => {
  const h = harness([2]);
  await h.assignAll(2);
  const first = h.tasks.get(2)! as unknown as FakeTask;
  first.failure = new FlowaggError('FLOWAGG_ERR_TEST_COMMIT', 'the broker went away');
  await h.tasks.rebuild(h.tasks.get(2)!);
  assert.equal(h.tasks.size, 0, 'the failed task is gone at once');
  assert.deepEqual(first.closes, [false]);
  await h.opening(); // the rebuild's open, under way when the group moves the partition
  h.assigned.length = 0;
  const revoking = h.tasks.revoke(2);
  await h.finishOpen();
  await revoking;
  assert.equal(h.tasks.size, 0);
  assert.equal(h.opened.length, 2, 'the rebuild opened once');
  assert.deepEqual(h.opened[1]!.closes, [false], 'and closed what it opened, the partition being gone');
});

test('a fenced task is left to the rebalance; a failed one is opened again while its partition stays', async () => {
  const h = harness([1, 3]);
  await h.assignAll(1, 3);
  (h.tasks.get(1) as unknown as FakeTask).failure = new FlowaggError(LOG_PRODUCER_FENCED, 'fenced');
  (h.tasks.get(3) as unknown as FakeTask).failure = new FlowaggError('FLOWAGG_ERR_TEST_COMMIT', 'failed');
  await h.tasks.rebuild(h.tasks.get(1)!);
  await h.tasks.rebuild(h.tasks.get(3)!);
  await h.finishOpen();
  while (h.tasks.get(3) === undefined) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(h.tasks.partitions(), [3]);
  assert.equal((h.tasks.get(3) as unknown as FakeTask).serial, 2, 'partition 3 has a new task');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(h.opened.length, 3, 'partition 1 was not opened again');
});

test('the periodic check closes, committing first, a task whose partition is no longer assigned', async () => {
  const h = harness([4, 5]);
  await h.assignAll(4, 5);
  h.assigned.splice(0, h.assigned.length, 5);
  h.tasks.reconcile();
  while (h.closed.length === 0) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(h.tasks.partitions(), [5]);
  assert.deepEqual(h.opened[0]!.closes, [true]);
});

test('an assignment drops a task left from before and opens a fresh one; the stop closes every task', async () => {
  const h = harness([6]);
  await h.assignAll(6, 6);
  assert.deepEqual(h.opened.map((t) => t.closes), [[false], []]);
  await h.tasks.abort();
  await h.tasks.closeAll();
  assert.equal(h.tasks.size, 0);
  assert.deepEqual(h.opened[1]!.closes, [true]);
});
