import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { KafkaMessage } from 'kafkajs';
import { isFlowaggError } from '../../errors.js';
import { LOG_KEY_REQUIRED, LOG_PARTITION_OUT_OF_RANGE } from '../errors.js';
import { partitionForKey } from '../partitioner.js';
import { createPartitioner } from './client.js';
import { fromKafkaMessage, placeRecords } from './records.js';

test("kafkajs's DefaultPartitioner and lib/log/partitioner.ts place every key alike", () => {
  const kafkajsPartition = createPartitioner();
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 1, max: 64 }), (key, count) => {
      const partitionMetadata = Array.from({ length: count }, (_, partitionId) => ({ partitionId, leader: 1, replicas: [1], isr: [1], partitionErrorCode: 0, offlineReplicas: [] }));
      const theirs = kafkajsPartition({ topic: 't', partitionMetadata, message: { key: Buffer.from(key), value: null } });
      assert.equal(theirs, partitionForKey(key, count));
    }),
    { numRuns: 2000 },
  );
});

test('records are placed by explicit partition, else by key, and keyless records of one send stay together', () => {
  const placed = placeRecords(
    't',
    [
      { key: Buffer.from('a'), value: Buffer.from('1') },
      { key: null, value: Buffer.from('2') },
      { key: Buffer.from('a'), value: Buffer.from('3'), partition: 2, timestamp: 1234 },
      { key: null, value: null },
    ],
    { partitions: 4, compacted: false },
    5,
  );
  assert.deepEqual(placed.partitions, [partitionForKey(Buffer.from('a'), 4), 1, 2, 1]);
  assert.equal(placed.messages[2]!.timestamp, '1234');
  assert.equal(placed.messages[3]!.value, null);
});

test('a partition outside the topic is refused before anything is sent', () => {
  assert.throws(
    () => placeRecords('t', [{ key: null, value: null, partition: 4 }], { partitions: 4, compacted: false }, 0),
    (err: unknown) => isFlowaggError(err, LOG_PARTITION_OUT_OF_RANGE) && /partition 4 of t, which has 4/.test(err.message),
  );
});

test('a record without a key is refused for a compacted topic, as the embedded log refuses it', () => {
  assert.throws(
    () => placeRecords('processor.state', [{ key: Buffer.from('k'), value: null }, { key: null, value: Buffer.from('v') }], { partitions: 2, compacted: true }, 0),
    (err: unknown) => isFlowaggError(err, LOG_KEY_REQUIRED) && /record 1 sent to compacted topic "processor.state" has no key/.test(err.message),
  );
});

test('a fetched message becomes a LogRecord with number offsets and single-valued headers', () => {
  const m = { offset: '42', timestamp: '1700000000000', key: Buffer.from('k'), value: null, headers: { a: Buffer.from('x'), b: ['1', '2'] }, attributes: 0, size: 0 } as unknown as KafkaMessage;
  assert.deepEqual(fromKafkaMessage('t', 3, m), {
    topic: 't',
    partition: 3,
    offset: 42,
    key: Buffer.from('k'),
    value: null,
    timestamp: 1_700_000_000_000,
    headers: { a: Buffer.from('x'), b: Buffer.from('2') },
  });
});
