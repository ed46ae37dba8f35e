// kafkajs, loaded with three of its modules replaced by faster ones that give the same results: the
// Produce request encoder (produce-encoder.ts), the fetched-record decoder (record-decoder.ts), and a
// linear groupMessagesPerPartition; and one replaced by a correct one: the read_committed filter of
// aborted transactions (aborted-filter.ts).
// kafkajs's modules take their dependencies with require() when kafkajs loads, so the replacements have
// to be in Node's module cache first: every module of the Kafka backend takes kafkajs's values from here,
// and imports kafkajs's types with `import type` (an `import { type X }` still loads the module).
// Only kafkajs 2.2.4 is patched (the version whose bytes the tests compare); any other runs unpatched.
import type * as Kafkajs from 'kafkajs';
import { createRequire } from 'node:module';
import { fastProduceRequest, type EncoderLike, type ProduceRequest, type ProduceRequestArgs } from './produce-encoder.js';
import { filterAbortedMessages } from './aborted-filter.js';
import { decodeRecord } from './record-decoder.js';

const require = createRequire(import.meta.url);
const PRODUCE_V3 = require.resolve('kafkajs/src/protocol/requests/produce/v3/request.js');
const GROUP_MESSAGES = require.resolve('kafkajs/src/producer/groupMessagesPerPartition.js');
const RECORD_DECODER = require.resolve('kafkajs/src/protocol/recordBatch/record/v0/decoder.js');
const ABORTED_FILTER = require.resolve('kafkajs/src/consumer/filterAbortedMessages.js');

interface GroupArgs<M> {
  topic: string;
  partitionMetadata: unknown[];
  messages: M[];
  partitioner: (args: { topic: string; partitionMetadata: unknown[]; message: M }) => number;
}

/**
 * kafkajs's groupMessagesPerPartition, linear: the original copies a partition's list for every message
 * it appends (quadratic, a few ms per 5,000-record send).
 */
export function groupMessagesPerPartition<M>({ topic, partitionMetadata, messages, partitioner }: GroupArgs<M>): Record<number, M[]> {
  const grouped: Record<number, M[]> = {};
  if (partitionMetadata.length === 0) return grouped;
  for (const message of messages) {
    const partition = partitioner({ topic, partitionMetadata, message });
    (grouped[partition] ??= []).push(message);
  }
  return grouped;
}

function install(): boolean {
  const { version } = require('kafkajs/package.json') as { version: string };
  if (version !== '2.2.4' || require.cache[require.resolve('kafkajs')] !== undefined) return false;
  const original = require(PRODUCE_V3) as (args: ProduceRequestArgs) => ProduceRequest;
  const Encoder = require('kafkajs/src/protocol/encoder.js') as new (initialSize?: number) => EncoderLike;
  require.cache[PRODUCE_V3]!.exports = fastProduceRequest(original, () => new Encoder(0));
  require(GROUP_MESSAGES);
  require.cache[GROUP_MESSAGES]!.exports = groupMessagesPerPartition;
  require(RECORD_DECODER);
  require.cache[RECORD_DECODER]!.exports = decodeRecord;
  require(ABORTED_FILTER);
  require.cache[ABORTED_FILTER]!.exports = filterAbortedMessages;
  return true;
}

/** Whether the replacements are in place (false if kafkajs was loaded before this module). */
export const kafkajsPatched: boolean = install();

const kafkajs = require('kafkajs') as typeof Kafkajs;
export default kafkajs;
