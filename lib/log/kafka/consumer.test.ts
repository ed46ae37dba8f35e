// The Kafka consumer's crash handling, on a stand-in for kafkajs's consumer (the broker-backed behaviour
// is kafka.functional.test.ts's): a crash kafkajs will not restart from, once the group was joined, goes
// to the owner's onFailure; one it restarts from does not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KafkaCluster } from './cluster.js';
import { KafkaConsumer } from './consumer.js';

const EVENTS = { GROUP_JOIN: 'consumer.group_join', CRASH: 'consumer.crash' } as const;

function standIn() {
  const listeners = new Map<string, (event: { payload: unknown }) => void>();
  const emit = (name: string, payload: unknown) => listeners.get(name)?.({ payload });
  const kafkajs = {
    events: EVENTS,
    on: (name: string, listener: (event: { payload: unknown }) => void) => void listeners.set(name, listener),
    connect: async () => {},
    subscribe: async () => {},
    run: async () => emit(EVENTS.GROUP_JOIN, { memberAssignment: {} }),
    disconnect: async () => {},
  };
  const cluster = { config: { sessionTimeout: 30_000 }, kafka: { consumer: () => kafkajs }, track: () => () => {}, checkOpen: () => {} } as unknown as KafkaCluster;
  return { cluster, crash: (restart: boolean) => emit(EVENTS.CRASH, { error: new Error('the coordinator is gone'), restart }) };
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
