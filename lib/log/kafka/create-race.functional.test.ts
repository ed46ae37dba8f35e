// Topic creation by services started together on a fresh broker (issue 21): several clients create the same
// new topics at once, each its own subset in its own order, as `flowagg process`, `flowagg export` and
// `flowagg ingest` do at start. Every one of them must come back with its topics usable at once (produce,
// offsets, layout), whichever of them the broker let create a topic and whichever it told the topic exists.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { kafkaBrokersForTests } from '../../../integration-tests/harness/kafka.js';
import type { TopicConfig } from '../types.js';
import { openKafkaLog } from './index.js';

const env = kafkaBrokersForTests();
const CLIENTS = 6;
const ROUNDS = 3;

test('clients creating the same new topics at once all get them, ready to use', { skip: env.skip, timeout: 120_000 }, async () => {
  const logs = await Promise.all(Array.from({ length: CLIENTS }, () => openKafkaLog({ brokers: env.brokers!, sessionTimeout: '6s' })));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const id = `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
      const topics: TopicConfig[] = [
        { topic: `race-raw-${id}`, partitions: 6 },
        { topic: `race-processed-${id}`, partitions: 3 },
        { topic: `race-state-${id}`, partitions: 6, cleanupPolicy: 'compact' },
      ];
      // Client i asks for topics in a rotated order, the odd ones for two of the three only.
      const wanted = logs.map((_, i) => {
        const rotated = [...topics.slice(i % 3), ...topics.slice(0, i % 3)];
        return i % 2 === 1 ? rotated.slice(0, 2) : rotated;
      });
      await Promise.all(logs.map(async (log, i) => {
        await log.admin().createTopics(wanted[i]!);
        for (const t of wanted[i]!) {
          const [sent] = await log.producer().send(t.topic, [{ key: Buffer.from(`client-${i}`), value: Buffer.from(`round ${round}`) }]);
          assert.equal(sent?.topic, t.topic);
          const offsets = await log.admin().fetchTopicOffsets(t.topic);
          assert.equal(offsets.length, t.partitions, `client ${i} sees ${t.topic} with all its partitions`);
        }
      }));
      const described = (await logs[0]!.admin().listTopics()).filter((t) => t.topic.endsWith(id));
      assert.deepEqual(described.map((t) => [t.topic, t.partitions, t.cleanupPolicy]).sort(), topics.map((t) => [t.topic, t.partitions, t.cleanupPolicy ?? 'delete']).sort());
    }
  } finally {
    await Promise.all(logs.map((l) => l.close()));
  }
});
