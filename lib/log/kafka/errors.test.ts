import assert from 'node:assert/strict';
import { test } from 'node:test';
import kafkajs from './kafkajs.js';
import { FlowaggError } from '../../errors.js';
import { LOG_PRODUCER_FENCED, LOG_UNKNOWN_TOPIC } from '../errors.js';
import { KAFKA_AUTH, KAFKA_BROKER, KAFKA_UNREACHABLE, kafkaError } from './errors.js';

const protocolError = (type: string, retriable: boolean) =>
  new kafkajs.KafkaJSProtocolError({ message: `broker says ${type}`, type, code: 1, retriable } as unknown as Error);

test('a broker error names what was being done, the broker error, and keeps kafkajs retriable flag', () => {
  const err = kafkaError(protocolError('NOT_ENOUGH_REPLICAS', true), 'sending records to Kafka', { topic: 'flows.raw' });
  assert.equal(err.code, KAFKA_BROKER);
  assert.equal(err.retriable, true);
  assert.match(err.message, /^sending records to Kafka: broker says NOT_ENOUGH_REPLICAS \(NOT_ENOUGH_REPLICAS\)$/);
  assert.deepEqual(err.context, { topic: 'flows.raw', brokerError: 'NOT_ENOUGH_REPLICAS' });

  const fatal = kafkaError(protocolError('TOPIC_AUTHORIZATION_FAILED', false), 'sending records to Kafka');
  assert.equal(fatal.retriable, false);
});

test('an error kafkajs gave up retrying is retriable when its cause is, and reports the cause', () => {
  const cause = protocolError('LEADER_NOT_AVAILABLE', true);
  const exceeded = new kafkajs.KafkaJSNumberOfRetriesExceeded(cause as unknown as Error, { retryCount: 8, retryTime: 5000 });
  const err = kafkaError(exceeded, 'committing consumer offsets');
  assert.equal(err.code, KAFKA_BROKER);
  assert.equal(err.retriable, true);
  assert.equal(err.context.brokerError, 'LEADER_NOT_AVAILABLE');
});

test('connection failures are FLOWAGG_ERR_LOG_KAFKA_UNREACHABLE and retriable', () => {
  const err = kafkaError(new kafkajs.KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:1'), 'connecting a Kafka producer');
  assert.equal(err.code, KAFKA_UNREACHABLE);
  assert.equal(err.retriable, true);
  assert.match(err.message, /cannot reach the Kafka brokers: Connection error: connect ECONNREFUSED/);
});

test('fencing and unknown topics get the shared log codes', () => {
  assert.equal(kafkaError(protocolError('PRODUCER_FENCED', false), 'committing a transaction').code, LOG_PRODUCER_FENCED);
  assert.equal(kafkaError(protocolError('INVALID_PRODUCER_EPOCH', false), 'committing a transaction').code, LOG_PRODUCER_FENCED);
  assert.equal(kafkaError(protocolError('UNKNOWN_TOPIC_OR_PARTITION', true), 'reading').code, LOG_UNKNOWN_TOPIC);
});

test('a FlowaggError passes through unchanged', () => {
  const original = new FlowaggError('FLOWAGG_ERR_LOG_CLOSED', 'closed');
  assert.equal(kafkaError(original, 'anything'), original);
});

test('a failed SASL authentication says so and is not retriable', () => {
  // kafkajs's typings omit the constructor's message argument.
  const SaslError = kafkajs.KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error;
  const err = kafkaError(new SaslError('SASL PLAIN authentication failed: Invalid username or password'), 'connecting a Kafka producer');
  assert.equal(err.code, KAFKA_AUTH);
  assert.equal(err.retriable, false);
  assert.match(err.message, /^connecting a Kafka producer: SASL PLAIN authentication failed: Invalid username or password \(check log.kafka.sasl\)$/);
});
