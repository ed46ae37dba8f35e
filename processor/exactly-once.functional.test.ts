// Issue 7's exactly-once, rebalance and replay scenarios on Kafka (KAFKA_BROKERS; `npm test` starts a
// broker). The embedded log runs them in exactly-once.test.ts.
import { test } from 'node:test';
import { kafkaBrokersForTests } from '../integration-tests/harness/kafka.js';
import { openKafkaLog } from '../lib/log/kafka/index.js';
import { exactlyOnceSuite } from './testing/exactly-once.js';

const env = kafkaBrokersForTests();
// A killed instance leaves the group when its session times out: short, so that restarts are quick.
const kafka = { brokers: env.brokers ?? '', sessionTimeout: '6s' };

if (env.skip === false) {
  exactlyOnceSuite({
    name: 'Kafka',
    logConfig: { backend: 'kafka', kafka },
    open: () => openKafkaLog(kafka),
    exclusive: false,
    timeoutMs: 300_000,
  });
} else {
  // Registered and skipped, so that the run says why these scenarios did not run.
  test('processor exactly once, Kafka', { skip: env.skip }, () => {});
}
