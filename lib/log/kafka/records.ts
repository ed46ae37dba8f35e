// Conversions between the log's records and kafkajs's: offsets and timestamps are decimal strings in
// kafkajs and JS numbers in the log; header values may repeat in Kafka and are single Buffers in the log.
import type { IHeaders, KafkaMessage, Message } from 'kafkajs';
import { FlowaggError } from '../../errors.js';
import { LOG_INVALID_ARGUMENT, LOG_KEY_REQUIRED, LOG_PARTITION_OUT_OF_RANGE } from '../errors.js';
import { partitionForKey } from '../partitioner.js';
import type { Headers, LogRecord, Offset, ProduceRecord } from '../types.js';
import type { TopicLayout } from './cluster.js';

/** Kafka's int64 offset as a JS number; offsets past 2^53 cannot occur in practice but must not go wrong silently. */
export function toOffset(value: string | number, what = 'offset'): Offset {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) {
    throw new FlowaggError(LOG_INVALID_ARGUMENT, `Kafka returned ${what} ${value}, which is not an integer below 2^53`);
  }
  return n;
}

function toHeaders(headers: IHeaders | undefined): Headers {
  if (headers === undefined) return {};
  const out: Record<string, Buffer> = {};
  for (const [name, value] of Object.entries(headers)) {
    // Kafka allows a header name to repeat; the log keeps the last value, as Java's lastHeader() does.
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (last !== undefined) out[name] = Buffer.isBuffer(last) ? last : Buffer.from(last);
  }
  return out;
}

export function fromKafkaMessage(topic: string, partition: number, m: KafkaMessage): LogRecord {
  return {
    topic,
    partition,
    offset: toOffset(m.offset),
    key: m.key ?? null,
    value: m.value ?? null,
    timestamp: Number(m.timestamp),
    headers: toHeaders(m.headers),
  };
}

/** The records of one send with the partition each goes to, decided here so that offsets can be reported per record. */
export interface PlacedRecords {
  readonly messages: Message[];
  readonly partitions: number[];
}

/**
 * Places each record: its explicit partition, else Java's murmur2 of its key, else (no key) one partition
 * per send, rotating between sends, as Kafka's sticky partitioner keeps a batch together.
 */
export function placeRecords(topic: string, records: readonly ProduceRecord[], layout: TopicLayout, keylessPartition: number): PlacedRecords {
  const partitionCount = layout.partitions;
  const now = String(Date.now());
  const messages: Message[] = new Array<Message>(records.length);
  const partitions: number[] = new Array<number>(records.length);
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    if ((r.key !== null && !Buffer.isBuffer(r.key)) || (r.value !== null && !Buffer.isBuffer(r.value))) {
      throw new FlowaggError(LOG_INVALID_ARGUMENT, `record ${i} sent to ${topic}: key and value must be Buffers or null`, { context: { topic } });
    }
    if (r.key === null && layout.compacted) {
      throw new FlowaggError(LOG_KEY_REQUIRED, `record ${i} sent to compacted topic "${topic}" has no key`, { context: { topic, index: i } });
    }
    let partition: number;
    if (r.partition !== undefined) {
      if (!Number.isInteger(r.partition) || r.partition < 0 || r.partition >= partitionCount) {
        throw new FlowaggError(LOG_PARTITION_OUT_OF_RANGE, `record ${i} sent to partition ${r.partition} of ${topic}, which has ${partitionCount}`, {
          context: { topic, partition: r.partition },
        });
      }
      partition = r.partition;
    } else {
      partition = r.key === null ? keylessPartition % partitionCount : partitionForKey(r.key, partitionCount);
    }
    partitions[i] = partition;
    messages[i] = {
      key: r.key,
      value: r.value,
      partition,
      timestamp: r.timestamp === undefined ? now : String(r.timestamp),
      ...(r.headers === undefined ? {} : { headers: r.headers as IHeaders }),
    };
  }
  return { messages, partitions };
}
