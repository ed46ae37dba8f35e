// exporters/retention.test.ts on Kafka: the records of flows.processed are removed under the exporter
// with DeleteRecords (what retention does to a segment, at once), so the exporter's committed offset is
// out of range when it reads again; kafkajs resets it to the earliest offset, and the exporter counts
// and names what was removed.
import { test } from 'node:test';
import { kafkaBrokersForTests } from '../integration-tests/harness/kafka.js';
import kafkajs from '../lib/log/kafka/kafkajs.js';
import { openKafkaLog } from '../lib/log/kafka/index.js';
import { assertLossCountedAndNamed, outageOutlastingRetention } from './testing/retention.js';

const { brokers, skip } = kafkaBrokersForTests();

test('Kafka: records removed before the exporter read them are counted and named; the rest arrives once', { skip, timeout: 300_000 }, async () => {
  const log = await openKafkaLog({ brokers: brokers!, sessionTimeout: '6s' });
  const admin = new kafkajs.Kafka({ brokers: brokers!.split(','), logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const outcome = await outageOutlastingRetention(
      log,
      (topics) => log.admin().createTopics([{ topic: topics.flowsProcessed, partitions: 2, cleanupPolicy: 'delete' }]),
      async (topics) => {
        await admin.fetchTopicMetadata({ topics: [topics.flowsProcessed] });
        await admin.deleteTopicRecords({ topic: topics.flowsProcessed, partitions: [{ partition: 0, offset: '1000' }] });
      },
    );
    assertLossCountedAndNamed(outcome);
  } finally {
    await admin.disconnect();
    await log.close();
  }
});
