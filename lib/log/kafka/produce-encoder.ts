// A faster encoder for kafkajs's Produce request (versions 3 to 7 all encode through v3's), installed by
// kafkajs.ts. kafkajs builds every record in its own growing Encoder, copies each partition's records
// several times and computes CRC-32C in JavaScript: about 10 µs of CPU per 300-byte record, which caps
// a producer far below the log's throughput target. This writes each partition's records as one Kafka v2
// record batch in a single exact-size buffer (lib/log/record-batch.ts, the same format the
// embedded log stores) with native CRC-32C. The bytes are kafkajs's own (produce-encoder.test.ts
// compares them); anything this does not cover (compression, string keys or values, repeated headers)
// goes to kafkajs's original encoder.
import { crc32c } from '@node-rs/crc32';
import { encodeBatch, type EncodableRecord } from '../record-batch.js';
import type { Headers } from '../types.js';

/** The fields of kafkajs's Message this encoder reads. */
interface KafkajsMessage {
  readonly key?: unknown;
  readonly value?: unknown;
  readonly timestamp?: string | number;
  readonly headers?: Record<string, unknown>;
}

interface PartitionData {
  readonly partition: number;
  readonly firstSequence?: number;
  readonly messages: readonly KafkajsMessage[];
}

export interface ProduceRequestArgs {
  readonly acks: number;
  readonly timeout: number;
  readonly transactionalId?: string | null;
  readonly producerId?: { toString(): string } | string | number;
  readonly producerEpoch?: number;
  readonly compression?: number;
  readonly topicData: readonly { readonly topic: string; readonly partitions: readonly PartitionData[] }[];
}

/** kafkajs's Encoder, as far as the connection uses a request's encoded payload. */
export interface EncoderLike {
  buf: Buffer;
  offset: number;
}

/** A kafkajs request: apiKey, apiVersion, apiName, expectResponse, and the encoder of its payload. */
export interface ProduceRequest {
  encode(): Promise<EncoderLike>;
}

/** Where baseSequence and the CRC sit in a v2 record batch, and where the bytes the CRC covers start. */
const BASE_SEQUENCE_AT = 53;
const CRC_AT = 17;
const CRC_START = 21;

const isBytes = (v: unknown): v is Buffer | null => v === null || Buffer.isBuffer(v);

function buffersOnly(headers: Record<string, unknown> | undefined): boolean {
  if (headers === undefined) return true;
  for (const k in headers) if (!Buffer.isBuffer(headers[k])) return false;
  return true;
}

/**
 * The records of one partition, or undefined when a message is not one this encoder writes exactly as
 * kafkajs would (a string key or value, a repeated header, a timestamp that is not an integer).
 */
function encodableRecords(p: PartitionData, now: number): EncodableRecord[] | undefined {
  const records = new Array<EncodableRecord>(p.messages.length);
  for (let i = 0; i < p.messages.length; i++) {
    const m = p.messages[i]!;
    const key = m.key ?? null;
    const value = m.value ?? null;
    const timestamp = m.timestamp === undefined ? now : Number(m.timestamp);
    if (!isBytes(key) || !isBytes(value) || !buffersOnly(m.headers) || !Number.isSafeInteger(timestamp)) return undefined;
    records[i] = { offsetDelta: i, timestamp, key, value, headers: m.headers as Headers | undefined };
  }
  return records;
}

function partitionBatch(records: EncodableRecord[], firstSequence: number, producerId: number, producerEpoch: number, transactional: boolean): Buffer {
  const batch = encodeBatch(records, records.length - 1, { producerId, producerEpoch, transactional }, 0);
  // The embedded log has no idempotence sequence; a Kafka producer's goes in, and the CRC covers it.
  batch.writeInt32BE(firstSequence, BASE_SEQUENCE_AT);
  batch.writeUInt32BE(crc32c(batch.subarray(CRC_START)), CRC_AT);
  return batch;
}

/**
 *   transactional_id NULLABLE_STRING, acks INT16, timeout INT32,
 *   [topic STRING, [partition INT32, record_set_size INT32, record_set BYTES]]
 */
export function encodeProduceRequest(args: ProduceRequestArgs): Buffer | undefined {
  if ((args.compression ?? 0) !== 0) return undefined;
  const producerId = Number(String(args.producerId ?? -1));
  const producerEpoch = args.producerEpoch ?? 0;
  const transactional = args.transactionalId !== undefined && args.transactionalId !== null;
  const now = Date.now();
  const parts: Buffer[] = [];
  const txnId = transactional ? Buffer.from(args.transactionalId!) : null;
  const head = Buffer.allocUnsafe(2 + (txnId?.length ?? 0) + 2 + 4 + 4);
  let pos = head.writeInt16BE(txnId === null ? -1 : txnId.length, 0);
  if (txnId !== null) pos += txnId.copy(head, pos);
  pos = head.writeInt16BE(args.acks, pos);
  pos = head.writeInt32BE(args.timeout, pos);
  head.writeInt32BE(args.topicData.length, pos);
  parts.push(head);
  for (const t of args.topicData) {
    const name = Buffer.from(t.topic);
    const topicHead = Buffer.allocUnsafe(2 + name.length + 4);
    topicHead.writeInt16BE(name.length, 0);
    name.copy(topicHead, 2);
    topicHead.writeInt32BE(t.partitions.length, 2 + name.length);
    parts.push(topicHead);
    for (const p of t.partitions) {
      const records = encodableRecords(p, now);
      if (records === undefined || records.length === 0) return undefined;
      const batch = partitionBatch(records, p.firstSequence ?? 0, producerId, producerEpoch, transactional);
      const partitionHead = Buffer.allocUnsafe(8);
      partitionHead.writeInt32BE(p.partition, 0);
      partitionHead.writeInt32BE(batch.length, 4);
      parts.push(partitionHead, batch);
    }
  }
  return Buffer.concat(parts);
}

/** kafkajs's produce/v3/request.js, with the fast path in front of the original. */
export function fastProduceRequest(original: (args: ProduceRequestArgs) => ProduceRequest, newEncoder: () => EncoderLike) {
  return (args: ProduceRequestArgs): ProduceRequest => {
    const fallback = original(args);
    return {
      ...fallback,
      encode: async () => {
        const buf = encodeProduceRequest(args);
        if (buf === undefined) return fallback.encode();
        const encoder = newEncoder();
        encoder.buf = buf;
        encoder.offset = buf.length;
        return encoder;
      },
    };
  };
}
