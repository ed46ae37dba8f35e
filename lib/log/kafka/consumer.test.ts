// The Kafka consumer's crash handling, on a stand-in for kafkajs's consumer (the broker-backed behaviour
// is kafka.functional.test.ts's): a crash kafkajs will not restart from, once the group was joined, goes
// to the owner's onFailure; one it restarts from does not. A commit kafkajs resolves without making it
// (its runner not running, which it does not say) fails.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FlowaggError } from '../../errors.js';
import { LOG_CONSUMER_STATE } from '../errors.js';
import type { KafkaCluster } from './cluster.js';
import { KafkaConsumer } from './consumer.js';

const coordinatorNotFound = () => Object.assign(new Error('Failed to find group coordinator'), { name: 'KafkaJSGroupCoordinatorNotFound' });

const EVENTS = { GROUP_JOIN: 'consumer.group_join', CRASH: 'consumer.crash', COMMIT_OFFSETS: 'consumer.commit_offsets' } as const;

interface Commit {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

/** `running()`: whether kafkajs's runner runs, so that commitOffsets commits (and reports it) or silently does nothing. */
/** `joins`: whether kafkajs's run() joins the group, or crashes for good; a function of the run's number from 1. */
function standIn(running: () => boolean = () => true, joins: boolean | ((run: number) => boolean) = true) {
  let runs = 0;
  const listeners = new Map<string, (event: { payload: unknown }) => void>();
  let disconnects = 0;
  const emit = (name: string, payload: unknown) => listeners.get(name)?.({ payload });
  const kafkajs = {
    events: EVENTS,
    on: (name: string, listener: (event: { payload: unknown }) => void) => void listeners.set(name, listener),
    connect: async () => {},
    subscribe: async () => {},
    run: async () => {
      runs++;
      if (typeof joins === 'function' ? joins(runs) : joins) emit(EVENTS.GROUP_JOIN, { memberAssignment: {} });
      else emit(EVENTS.CRASH, { error: typeof joins === 'function' ? coordinatorNotFound() : new Error('no coordinator'), restart: false });
    },
    disconnect: async () => void disconnects++,
    commitOffsets: async (offsets: readonly Commit[]) => {
      // kafkajs's Runner.commitOffsets returns at once when not running; the offset manager reports what it committed.
      if (!running()) return;
      await Promise.resolve();
      emit(EVENTS.COMMIT_OFFSETS, { topics: offsets.map((o) => ({ topic: o.topic, partitions: [{ partition: o.partition, offset: o.offset }] })) });
    },
  };
  let options: { retry: { restartOnFailure: (err: Error) => Promise<boolean> } } | undefined;
  const cluster = { config: { sessionTimeout: 30_000 }, kafka: { consumer: (o: typeof options) => ((options = o), kafkajs) }, track: () => () => {}, checkOpen: () => {} } as unknown as KafkaCluster;
  return { cluster, runs: () => runs, disconnects: () => disconnects, restartOnFailure: () => options!.retry.restartOnFailure(new Error('the broker went away')), crash: (restart: boolean) => emit(EVENTS.CRASH, { error: new Error('the coordinator is gone'), restart }) };
}

test('a crash kafkajs does not restart from reaches onFailure; one it restarts from does not', async () => {
  const { cluster, crash } = standIn();
  const consumer = new KafkaConsumer(cluster, { groupId: 'g' });
  const failures: unknown[] = [];
  await consumer.subscribe(['t']);
  await consumer.run({ eachBatch: async () => {}, onFailure: (err) => failures.push(err) });
  crash(true);
  assert.deepEqual(failures, []);
  crash(false);
  assert.equal(failures.length, 1);
  assert.match((failures[0] as Error).message, /consuming.*the coordinator is gone/);
  await consumer.stop();
});

test('kafkajs restarts a crashed consumer while it runs, and not once stop() was called (a crash it was handling then restarted it for good)', async () => {
  const { cluster, restartOnFailure } = standIn();
  const consumer = new KafkaConsumer(cluster, { groupId: 'g' });
  await consumer.subscribe(['t']);
  await consumer.run({ eachBatch: async () => {} });
  assert.equal(await restartOnFailure(), true);
  await consumer.stop();
  assert.equal(await restartOnFailure(), false);
});

test('a run() that fails stops the consumer: kafkajs is disconnected and restarts it no more', async () => {
  const { cluster, restartOnFailure, disconnects } = standIn(() => true, false);
  const consumer = new KafkaConsumer(cluster, { groupId: 'g' });
  await consumer.subscribe(['t']);
  await assert.rejects(consumer.run({ eachBatch: async () => {} }), /joining the consumer group.*no coordinator/);
  assert.equal(disconnects(), 1);
  assert.equal(await restartOnFailure(), false);
});

test('a group coordinator kafkajs gave up finding before the first join (a broker just started) is looked for again', async () => {
  const { cluster, runs } = standIn(() => true, (run) => run >= 3);
  const consumer = new KafkaConsumer(cluster, { groupId: 'g' });
  await consumer.subscribe(['t']);
  await consumer.run({ eachBatch: async () => {} });
  assert.equal(runs(), 3, 'kafkajs run again after each crash, until it joined');
  await consumer.stop();
});

test('stop() while kafkajs is still looking for the group coordinator ends run(), and the search', async () => {
  const { cluster, runs, disconnects } = standIn(() => true, () => false);
  const consumer = new KafkaConsumer(cluster, { groupId: 'g' });
  await consumer.subscribe(['t']);
  let ran = false;
  const running = consumer.run({ eachBatch: async () => {} }).then(() => (ran = true));
  while (runs() < 2) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(ran, false, 'run() waits for the first join');
  await consumer.stop();
  await running;
  assert.equal(disconnects(), 1);
  const before = runs();
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  assert.equal(runs(), before, 'no join is tried after stop()');
});

test('a commit kafkajs resolves without making it (its consumer restarting after a crash) fails, to be tried again', async () => {
  let running = true;
  const { cluster, crash } = standIn(() => running);
  const consumer = new KafkaConsumer(cluster, { groupId: 'g' });
  await consumer.subscribe(['t']);
  await consumer.run({ eachBatch: async () => {} });
  await consumer.commit([{ topic: 't', partition: 0, offset: 10 }, { topic: 't', partition: 1, offset: 20 }]);
  running = false;
  crash(true);
  await assert.rejects(consumer.commit([{ topic: 't', partition: 0, offset: 12 }]), (err: FlowaggError) => {
    assert.equal(err.code, LOG_CONSUMER_STATE);
    assert.equal(err.retriable, true);
    assert.match(err.message, /kafkajs did not commit them/);
    assert.equal(err.context.offsets, 't/0@12');
    return true;
  });
  running = true;
  await consumer.commit([{ topic: 't', partition: 0, offset: 12 }]);
  await consumer.stop();
});
