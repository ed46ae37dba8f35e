// Closing the Kafka log while the broker answers nothing (issue 21: a service that lived through a broker
// restart sometimes outlasted SIGTERM). A stalled broker (SIGSTOP: it neither answers nor closes, as one
// cut off without a FIN) leaves a consumer group member, a transactional producer, a producer's send and
// the admin with requests in flight; kafkajs's disconnect waits for their answers for ever (sockets.ts).
// close() must return after closeTimeout, and leave nothing that keeps the process alive.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { startRestartableKafka } from '../../../integration-tests/harness/kafka.js';
import { untilHolds } from '../../testing/until.js';
import { openKafkaLog } from './index.js';
import { openedSince } from '../../testing/active-resources.js';

const CLOSE_TIMEOUT_MS = 2000;

test('closing the log while the broker answers nothing returns after closeTimeout and holds nothing open', { timeout: 180_000 }, async (t) => {
  const broker = await startRestartableKafka((line) => t.diagnostic(line));
  t.after(() => broker.stop());
  const id = randomBytes(4).toString('hex');
  const topic = `stalled-${id}`;
  const before = process.getActiveResourcesInfo();
  const log = await openKafkaLog({ brokers: broker.brokers, closeTimeout: `${CLOSE_TIMEOUT_MS}ms`, sessionTimeout: '6s' });
  await log.admin().createTopics([{ topic, partitions: 2 }]);
  const producer = log.producer();
  await producer.send(topic, [{ key: Buffer.from('k'), value: Buffer.from('before the stall') }]);
  const consumer = log.consumer({ groupId: `stalled-${id}` });
  let delivered = 0;
  await consumer.subscribe([topic]);
  await consumer.run({ eachBatch: async (batch) => void (delivered += batch.records.length) });
  const transactional = log.transactionalProducer(`stalled-${id}`);
  const transaction = await transactional.begin();
  await transaction.send(topic, [{ key: Buffer.from('t'), value: Buffer.from('in a transaction') }]);
  await untilHolds('the consumer reading the first record', () => delivered, (n) => n >= 1);

  broker.stall();
  t.after(() => broker.continue());
  // Requests in flight that the broker will not answer: a send, a transaction's commit, topic offsets.
  const unanswered = [
    producer.send(topic, [{ key: Buffer.from('k'), value: Buffer.from('during the stall') }]),
    transaction.commit(),
    log.admin().fetchTopicOffsets(topic),
  ].map((p) => p.catch(() => 'failed'));
  const started = Date.now();
  await log.close();
  const took = Date.now() - started;
  assert.ok(took >= CLOSE_TIMEOUT_MS - 100 && took < CLOSE_TIMEOUT_MS + 5000, `close() took ${took} ms with closeTimeout ${CLOSE_TIMEOUT_MS} ms`);
  assert.deepEqual(await Promise.all(unanswered), ['failed', 'failed', 'failed'], 'what the broker never answered fails');
  // Destroyed sockets close on the next turns of the loop.
  await untilHolds('nothing of the log holding the event loop', () => openedSince(before), (left) => left.length === 0, { timeoutMs: 5000 });
});
