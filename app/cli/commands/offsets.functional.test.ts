// `flowagg offsets` against Kafka (KAFKA_BROKERS): list with lag, a reset, and the refusal while a
// consumer of the group is running, as kafka-consumer-groups refuses.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { kafkaBrokersForTests } from '../../../integration-tests/harness/kafka.js';
import { isFlowaggError } from '../../../lib/errors.js';
import { LOG_GROUP_ACTIVE } from '../../../lib/log/errors.js';
import { openKafkaLog } from '../../../lib/log/kafka/index.js';
import type { MessageLog } from '../../../lib/log/types.js';
import { parseCommandArgs } from '../command.js';
import { offsetsCommand, runOffsets } from './offsets.js';

const env = kafkaBrokersForTests();
const suffix = `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
const topic = `offsets-cli-${suffix}`;
const group = `offsets-cli-group-${suffix}`;

async function offsets(...argv: string[]): Promise<string> {
  let out = '';
  const code = await runOffsets(parseCommandArgs(offsetsCommand, [...argv, '--brokers', env.brokers!]), (text) => (out += text));
  assert.equal(code, 0);
  return out;
}

const committed = async () =>
  (JSON.parse(await offsets('list', '--group', group, '--json')) as { groups: { partitions: { partition: number; committed: number | null; lag: number }[] }[] }).groups[0]!.partitions
    .sort((a, b) => a.partition - b.partition)
    .map((p) => [p.committed, p.lag]);

describe('flowagg offsets on Kafka', { skip: env.skip }, () => {
  let log: MessageLog;
  before(async () => {
    log = await openKafkaLog({ brokers: env.brokers!, sessionTimeout: '6s' });
    await log.admin().createTopics([{ topic, partitions: 2 }]);
    await log.producer().send(topic, Array.from({ length: 12 }, (_, i) => ({ key: null, value: Buffer.from(`r${i}`), partition: i % 2 })));
    const consumer = log.consumer({ groupId: group });
    await consumer.subscribe([topic]);
    await consumer.run({ eachBatch: async () => {} });
    await consumer.commit([
      { topic, partition: 0, offset: 6 },
      { topic, partition: 1, offset: 2 },
    ]);
    await consumer.stop();
  });
  after(async () => {
    await log?.close();
  });

  test('list shows the committed offsets and lag, as a table and as JSON', async () => {
    const table = await offsets('list', '--group', group);
    const rows = table.trim().split('\n').slice(1).map((l) => l.split(/\s+/));
    assert.deepEqual(rows, [
      [group, 'empty', '0', topic, '0', '6', '6', '0'],
      [group, 'empty', '0', topic, '1', '2', '6', '4'],
    ]);
    assert.deepEqual(await committed(), [
      [6, 0],
      [2, 4],
    ]);
  });

  test('reset moves the offsets, and is refused while a consumer of the group runs', async () => {
    await offsets('reset', '--group', group, '--topic', topic, '--shift-by=-2');
    assert.deepEqual(await committed(), [
      [4, 2],
      [0, 6],
    ]);
    const consumer = log.consumer({ groupId: group });
    await consumer.subscribe([topic]);
    await consumer.run({ eachBatch: async () => {} });
    try {
      await assert.rejects(offsets('reset', '--group', group, '--topic', topic, '--to-latest'), (err: unknown) => isFlowaggError(err, LOG_GROUP_ACTIVE));
    } finally {
      await consumer.stop();
    }
    await offsets('reset', '--group', group, '--topic', topic, '--to-latest');
    assert.deepEqual(await committed(), [
      [6, 0],
      [6, 0],
    ]);
  });
});
