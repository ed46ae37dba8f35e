// Issue 15's failed-commit test on Kafka (KAFKA_BROKERS; `npm test` starts a broker). The embedded log
// runs it in failed-commit.test.ts.
import { test } from 'node:test';
import { kafkaBrokersForTests } from '../integration-tests/harness/kafka.js';
import { openKafkaLog } from '../lib/log/kafka/index.js';
import { failedCommitSuite } from './testing/failed-commit.js';

const env = kafkaBrokersForTests();

if (env.skip === false) failedCommitSuite({ name: 'Kafka', open: () => openKafkaLog({ brokers: env.brokers }), timeoutMs: 120_000 });
// Registered and skipped, so that the run says why the scenario did not run.
else test('processor, a failed commit, Kafka', { skip: env.skip }, () => {});
