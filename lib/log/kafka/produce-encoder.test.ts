// The fast Produce encoder must write exactly kafkajs's bytes: compared here with kafkajs's own encoder.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import fc from 'fast-check';
import { groupMessagesPerPartition, kafkajsPatched } from './kafkajs.js';
import { encodeProduceRequest, type ProduceRequest, type ProduceRequestArgs } from './produce-encoder.js';

const require = createRequire(import.meta.url);
const PRODUCE_V3 = require.resolve('kafkajs/src/protocol/requests/produce/v3/request.js');
const fast = require(PRODUCE_V3) as (args: ProduceRequestArgs) => ProduceRequest;
/** kafkajs's original encoder, loaded afresh beside the installed one. */
const original = (() => {
  const installed = require.cache[PRODUCE_V3];
  delete require.cache[PRODUCE_V3];
  try {
    return require(PRODUCE_V3) as (args: ProduceRequestArgs) => ProduceRequest;
  } finally {
    require.cache[PRODUCE_V3] = installed;
  }
})();

async function bytes(encoder: (args: ProduceRequestArgs) => ProduceRequest, args: ProduceRequestArgs): Promise<Buffer> {
  const e = (await encoder(args).encode()) as unknown as { buffer: Buffer };
  return e.buffer;
}

const ts = (i: number) => String(1_795_000_000_000 + i * 1234);

test('the fast encoder is installed in kafkajs', () => {
  assert.equal(kafkajsPatched, true);
  assert.notEqual(fast, original);
});

test('idempotent and transactional requests are byte for byte kafkajs’s', async () => {
  const messages = [
    { key: Buffer.from('10.0.0.1|10.0.0.2|6|34567|443'), value: Buffer.alloc(280, 7), timestamp: ts(3) },
    { key: null, value: Buffer.from('keyless'), timestamp: ts(1) },
    { key: Buffer.from('deleted'), value: null, timestamp: ts(9) },
    { key: Buffer.from('h'), value: Buffer.from('with headers'), timestamp: ts(2), headers: { exporter: Buffer.from('10.1.1.1'), 'é': Buffer.alloc(0) } },
  ];
  const base = {
    acks: -1,
    timeout: 30_000,
    producerId: '4711',
    producerEpoch: 3,
    topicData: [
      { topic: 'flows.raw', partitions: [{ partition: 0, firstSequence: 42, messages }, { partition: 5, firstSequence: 0, messages: messages.slice(1) }] },
      { topic: 'ipfix.templates', partitions: [{ partition: 2, firstSequence: 7, messages: messages.slice(0, 1) }] },
    ],
  };
  for (const args of [base, { ...base, transactionalId: 'flowagg-processor-flows.raw-3' }]) {
    assert.notEqual(encodeProduceRequest(args), undefined, 'on the fast path');
    assert.deepEqual(await bytes(fast, args), await bytes(original, args));
  }
});

test('random records encode as kafkajs encodes them', async () => {
  const message = fc.record({
    key: fc.option(fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)), { nil: null }),
    value: fc.option(fc.uint8Array({ maxLength: 600 }).map((a) => Buffer.from(a)), { nil: null }),
    timestamp: fc.integer({ min: 0, max: 10_000_000 }).map(ts),
    headers: fc.option(fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.uint8Array({ maxLength: 20 }).map((a) => Buffer.from(a))), { nil: undefined }),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 50 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (messages, firstSequence) => {
      const args = { acks: -1, timeout: 1000, producerId: '1', producerEpoch: 0, topicData: [{ topic: 't', partitions: [{ partition: 1, firstSequence, messages }] }] };
      assert.deepEqual(await bytes(fast, args), await bytes(original, args));
    }),
    { numRuns: 200 },
  );
});

test('what the fast path does not cover goes to kafkajs’s encoder', async () => {
  const messages = [{ key: 'a string key', value: Buffer.from('v'), timestamp: ts(0) }];
  const strings = { acks: -1, timeout: 1000, topicData: [{ topic: 't', partitions: [{ partition: 0, messages }] }] } as unknown as ProduceRequestArgs;
  assert.equal(encodeProduceRequest(strings), undefined);
  assert.deepEqual(await bytes(fast, strings), await bytes(original, strings));
  const gzip = { acks: -1, timeout: 1000, compression: 1, topicData: [{ topic: 't', partitions: [{ partition: 0, messages: [{ key: null, value: Buffer.from('v'), timestamp: ts(0) }] }] }] };
  assert.equal(encodeProduceRequest(gzip), undefined);
  const repeatedHeader = { acks: -1, timeout: 1000, topicData: [{ topic: 't', partitions: [{ partition: 0, messages: [{ key: null, value: null, headers: { h: [Buffer.from('1'), Buffer.from('2')] } }] }] }] };
  assert.equal(encodeProduceRequest(repeatedHeader), undefined);
});

test('the linear groupMessagesPerPartition groups as kafkajs’s does, in order', () => {
  const GROUP_MESSAGES = require.resolve('kafkajs/src/producer/groupMessagesPerPartition.js');
  assert.equal(require(GROUP_MESSAGES), groupMessagesPerPartition, 'installed in kafkajs');
  const installed = require.cache[GROUP_MESSAGES];
  delete require.cache[GROUP_MESSAGES];
  const kafkajsGroup = require(GROUP_MESSAGES) as typeof groupMessagesPerPartition;
  require.cache[GROUP_MESSAGES] = installed;
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 7 })), fc.integer({ min: 0, max: 8 }), (placements, partitions) => {
      const args = {
        topic: 't',
        partitionMetadata: Array.from({ length: partitions }, (_, partitionId) => ({ partitionId })),
        messages: placements.map((partition, i) => ({ partition, i })),
        partitioner: ({ message }: { message: { partition: number } }) => message.partition,
      };
      assert.deepEqual(groupMessagesPerPartition(args), kafkajsGroup(args));
    }),
  );
});
