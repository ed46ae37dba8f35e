// The record batch of both backends: Kafka's v2 batch ("magic 2"), byte for byte. The embedded log keeps
// it on disk (segment files could be read by Kafka tooling) and the Kafka backend's produce encoder sends
// it, so the layout decisions are Kafka's, not ours. Pure functions over Buffers.
//
//   offset  field                 type
//   0       baseOffset            i64   not covered by the CRC: assigned when the batch is appended
//   8       batchLength           i32   bytes after this field (whole batch = batchLength + 12)
//   12      partitionLeaderEpoch  i32   always 0 here
//   16      magic                 i8    2
//   17      crc                   u32   CRC-32C (Castagnoli) of bytes 21..end
//   21      attributes            i16   bit 4 transactional, bit 5 control; no compression
//   23      lastOffsetDelta       i32
//   27      baseTimestamp         i64
//   35      maxTimestamp          i64
//   43      producerId            i64   -1 outside transactions
//   51      producerEpoch         i16
//   53      baseSequence          i32   -1 (no idempotence sequence: one writer per process)
//   57      recordsCount          i32
//   61      records: length varint, attributes i8, timestampDelta varlong, offsetDelta varint,
//           key (varint length, -1 = null), value (same), header count varint, headers (key, value)
//
// Varints are zigzag-encoded, as in Kafka. A control batch holds one record whose key is
// version i16 (0) + type i16 (0 abort, 1 commit).
import { crc32c } from '@node-rs/crc32';
import { BatchRecord, view } from './batch-record.js';
import type { Headers, LogRecord, RecordRun } from './types.js';

export const BATCH_HEADER_SIZE = 61;
/** Bytes before batchLength's payload: baseOffset + batchLength. */
export const BATCH_LENGTH_OVERHEAD = 12;
const MAGIC = 2;
const CRC_START = 21;
const ATTR_TRANSACTIONAL = 0x10;
const ATTR_CONTROL = 0x20;
const TWO_32 = 4294967296;
const EMPTY_HEADERS: Headers = Object.freeze({});

export type ControlType = 'abort' | 'commit';

export interface BatchHeader {
  readonly baseOffset: number;
  /** The whole batch in bytes. */
  readonly size: number;
  readonly lastOffset: number;
  readonly maxTimestamp: number;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly transactional: boolean;
  readonly control: boolean;
  readonly recordsCount: number;
}

export interface BatchProducer {
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly transactional: boolean;
}

/** Record overhead in a v2 batch, at most: length, attributes, timestamp and offset deltas, lengths. */
export const RECORD_OVERHEAD_BYTES = 32;

/**
 * The embedded log's records of one batch stay below this many bytes, as a Kafka producer's batch.size cuts
 * them: a reader fetches whole batches, and a checkpoint of a million flows is one send.
 */
export const MAX_BATCH_BYTES = 1 << 20;

/**
 * The end of the batch of records [from, end) that starts at `from`: at least one record, below
 * MAX_BATCH_BYTES if more, each record counted as RECORD_OVERHEAD_BYTES plus `bytesOf(i)`.
 */
export function batchEnd(from: number, end: number, bytesOf: (i: number) => number): number {
  let bytes = 0;
  let to = from;
  for (; to < end; to++) {
    const size = RECORD_OVERHEAD_BYTES + bytesOf(to);
    if (to > from && bytes + size > MAX_BATCH_BYTES) break;
    bytes += size;
  }
  return to;
}

export const NO_PRODUCER: BatchProducer = { producerId: -1, producerEpoch: -1, transactional: false };

/**
 * A record to encode. A producer's records are encoded as they were sent (a ProduceRecord is one), so a
 * send builds no object per record: the offset relative to the batch's base defaults to the record's
 * index (compaction keeps the original ones), the timestamp to the batch's `now`.
 */
export interface EncodableRecord {
  readonly offsetDelta?: number;
  readonly timestamp?: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: Headers | undefined;
}

function writeI64(buf: Buffer, pos: number, n: number): void {
  const hi = Math.floor(n / TWO_32);
  buf.writeInt32BE(hi, pos);
  buf.writeUInt32BE(n - hi * TWO_32, pos + 4);
}

function readI64(buf: Buffer, pos: number): number {
  return buf.readInt32BE(pos) * TWO_32 + buf.readUInt32BE(pos + 4);
}

const zigzag = (n: number): number => (n >= 0 ? n * 2 : -n * 2 - 1);

function uvarintSize(v: number): number {
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  let size = 1;
  for (; v >= 0x80; v = Math.floor(v / 128)) size++;
  return size;
}

const varintSize = (n: number): number => uvarintSize(zigzag(n));

function writeVarint(buf: Buffer, pos: number, n: number): number {
  let v = zigzag(n);
  if (v < 0x80) {
    buf[pos] = v;
    return pos + 1;
  }
  if (v < 0x4000) {
    buf[pos] = (v & 0x7f) | 0x80;
    buf[pos + 1] = v >>> 7;
    return pos + 2;
  }
  while (v >= 0x80) {
    buf[pos++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[pos++] = v;
  return pos;
}

/** The read cursor of readVarint; decoding is synchronous, so one module-level cursor is safe and allocation-free. */
let cursor = 0;

function readVarint(buf: Buffer): number {
  const b0 = buf[cursor++]!;
  if (b0 < 0x80) return (b0 >>> 1) ^ -(b0 & 1);
  const b1 = buf[cursor++]!;
  if (b1 < 0x80) {
    const v = (b0 & 0x7f) | (b1 << 7);
    return (v >>> 1) ^ -(v & 1);
  }
  const b2 = buf[cursor++]!;
  if (b2 < 0x80) {
    const v = (b0 & 0x7f) | ((b1 & 0x7f) << 7) | (b2 << 14);
    return (v >>> 1) ^ -(v & 1);
  }
  // Long form (up to 10 bytes for 64-bit values), in floating point to stay exact up to 2^53.
  let v = (b0 & 0x7f) + (b1 & 0x7f) * 0x80 + (b2 & 0x7f) * 0x4000;
  let scale = 0x200000;
  let b = 0x80;
  while (b >= 0x80) {
    b = buf[cursor++]!;
    v += (b & 0x7f) * scale;
    scale *= 128;
  }
  return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
}

const bytesSize = (b: Buffer | null): number => (b === null ? 1 : varintSize(b.length) + b.length);

function writeBytes(buf: Buffer, pos: number, b: Buffer | null): number {
  if (b === null) return writeVarint(buf, pos, -1);
  pos = writeVarint(buf, pos, b.length);
  buf.set(b, pos);
  return pos + b.length;
}

function headersBodySize(headers: Headers | undefined): number {
  if (headers === undefined) return 1;
  let size = 0;
  let count = 0;
  for (const k in headers) {
    const kLen = Buffer.byteLength(k);
    size += varintSize(kLen) + kLen + bytesSize(headers[k]!);
    count++;
  }
  return size + varintSize(count);
}

function writeHeaders(buf: Buffer, pos: number, headers: Headers | undefined): number {
  const keys = headers === undefined ? [] : Object.keys(headers);
  pos = writeVarint(buf, pos, keys.length);
  for (const k of keys) {
    pos = writeBytes(buf, pos, Buffer.from(k));
    pos = writeBytes(buf, pos, headers![k]!);
  }
  return pos;
}

/** The batch's fields before its records (baseOffset 0: setBaseOffset assigns it on append). */
interface BatchFields {
  readonly size: number;
  readonly lastOffsetDelta: number;
  readonly baseTimestamp: number;
  readonly maxTimestamp: number;
  readonly recordsCount: number;
  readonly control: boolean;
}

function writeBatchHeader(buf: Buffer, f: BatchFields, producer: BatchProducer): void {
  writeI64(buf, 0, 0);
  buf.writeInt32BE(f.size - BATCH_LENGTH_OVERHEAD, 8);
  buf.writeInt32BE(0, 12);
  buf[16] = MAGIC;
  buf.writeInt16BE((producer.transactional ? ATTR_TRANSACTIONAL : 0) | (f.control ? ATTR_CONTROL : 0), 21);
  buf.writeInt32BE(f.lastOffsetDelta, 23);
  writeI64(buf, 27, f.baseTimestamp);
  writeI64(buf, 35, f.maxTimestamp);
  writeI64(buf, 43, producer.producerId);
  buf.writeInt16BE(producer.producerEpoch, 51);
  buf.writeInt32BE(-1, 53);
  buf.writeInt32BE(f.recordsCount, 57);
}

const sealBatch = (buf: Buffer) => buf.writeUInt32BE(crc32c(buf.subarray(CRC_START)), 17);

/**
 * Encodes records into one batch with baseOffset 0 (setBaseOffset assigns it on append).
 * lastOffsetDelta is given explicitly so that a compacted batch keeps the offset range it covered.
 */
export function encodeBatch(records: readonly EncodableRecord[], lastOffsetDelta: number, producer: BatchProducer, now: number, control = false, allocate: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
  let baseTimestamp = records[0]!.timestamp ?? now;
  let maxTimestamp = baseTimestamp;
  for (const r of records) {
    const t = r.timestamp ?? now;
    if (t < baseTimestamp) baseTimestamp = t;
    if (t > maxTimestamp) maxTimestamp = t;
  }
  const bodySizes = new Array<number>(records.length);
  let size = BATCH_HEADER_SIZE;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const body =
      1 + varintSize((r.timestamp ?? now) - baseTimestamp) + varintSize(r.offsetDelta ?? i) + bytesSize(r.key) + bytesSize(r.value) + headersBodySize(r.headers);
    bodySizes[i] = body;
    size += varintSize(body) + body;
  }
  const buf = allocate(size);
  writeBatchHeader(buf, { size, lastOffsetDelta, baseTimestamp, maxTimestamp, recordsCount: records.length, control }, producer);
  let pos = BATCH_HEADER_SIZE;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    pos = writeVarint(buf, pos, bodySizes[i]!);
    buf[pos++] = 0;
    pos = writeVarint(buf, pos, (r.timestamp ?? now) - baseTimestamp);
    pos = writeVarint(buf, pos, r.offsetDelta ?? i);
    pos = writeBytes(buf, pos, r.key);
    pos = writeBytes(buf, pos, r.value);
    pos = writeHeaders(buf, pos, r.headers);
  }
  sealBatch(buf);
  return buf;
}

/** Body bytes of a run's record: attributes, timestamp delta 0, offset delta, key, value, no headers. */
const runBodySize = (offsetDelta: number, keyLength: number, valueLength: number) =>
  3 + varintSize(offsetDelta) + varintSize(keyLength) + keyLength + varintSize(valueLength) + valueLength;

/** A run's record copied into a batch (TypedArray#set: Buffer#copy is a call into C++, a third slower here). */
function writeRange(buf: Buffer, pos: number, src: Buffer, start: number, end: number): number {
  pos = writeVarint(buf, pos, end - start);
  buf.set(src.subarray(start, end), pos);
  return pos + end - start;
}

/**
 * Encodes records of runs into one batch, all with the timestamp `now`: record k of the batch is record
 * `ats[k] / 3` of `runs[runIndexes[k]]`, for k in [from, to).
 */
export function encodeRunBatch(
  runs: readonly RecordRun[], runIndexes: Int32Array, ats: Int32Array, from: number, to: number, producer: BatchProducer, now: number, allocate: (size: number) => Buffer = Buffer.allocUnsafe,
): Buffer {
  let size = BATCH_HEADER_SIZE;
  for (let k = from; k < to; k++) {
    const { bounds } = runs[runIndexes[k]!]!;
    const at = ats[k]!;
    const body = runBodySize(k - from, bounds[at + 1]! - bounds[at]!, bounds[at + 2]! - bounds[at + 1]!);
    size += varintSize(body) + body;
  }
  const buf = allocate(size);
  writeBatchHeader(buf, { size, lastOffsetDelta: to - from - 1, baseTimestamp: now, maxTimestamp: now, recordsCount: to - from, control: false }, producer);
  let pos = BATCH_HEADER_SIZE;
  for (let k = from; k < to; k++) {
    const { buf: src, bounds } = runs[runIndexes[k]!]!;
    const at = ats[k]!;
    const keyStart = bounds[at]!;
    const keyEnd = bounds[at + 1]!;
    const valueEnd = bounds[at + 2]!;
    pos = writeVarint(buf, pos, runBodySize(k - from, keyEnd - keyStart, valueEnd - keyEnd));
    buf[pos++] = 0;
    buf[pos++] = 0;
    pos = writeVarint(buf, pos, k - from);
    pos = writeRange(buf, pos, src, keyStart, keyEnd);
    pos = writeRange(buf, pos, src, keyEnd, valueEnd);
    buf[pos++] = 0;
  }
  sealBatch(buf);
  return buf;
}

export function encodeControlBatch(type: ControlType, producer: BatchProducer, timestamp: number): Buffer {
  const key = Buffer.from([0, 0, 0, type === 'commit' ? 1 : 0]);
  return encodeBatch([{ key, value: null }], 0, producer, timestamp, true);
}

export function batchMaxTimestamp(batch: Buffer): number {
  return readI64(batch, 35);
}

export function setBaseOffset(batch: Buffer, offset: number): void {
  writeI64(batch, 0, offset);
}

/** The whole batch's size from the first 12 bytes, or -1 when they do not describe a plausible batch. */
export function batchSizeAt(buf: Buffer, pos: number): number {
  const length = buf.readInt32BE(pos + 8);
  return length < BATCH_HEADER_SIZE - BATCH_LENGTH_OVERHEAD ? -1 : length + BATCH_LENGTH_OVERHEAD;
}

/** Checks magic and CRC of a complete batch at buf[pos, pos + size). */
export function batchIsValid(buf: Buffer, pos: number, size: number): boolean {
  return buf[pos + 16] === MAGIC && crc32c(buf.subarray(pos + CRC_START, pos + size)) === buf.readUInt32BE(pos + 17);
}

export function readBatchHeader(buf: Buffer, pos: number): BatchHeader {
  const attributes = buf.readInt16BE(pos + 21);
  const baseOffset = readI64(buf, pos);
  return {
    baseOffset,
    size: buf.readInt32BE(pos + 8) + BATCH_LENGTH_OVERHEAD,
    lastOffset: baseOffset + buf.readInt32BE(pos + 23),
    maxTimestamp: readI64(buf, pos + 35),
    producerId: readI64(buf, pos + 43),
    producerEpoch: buf.readInt16BE(pos + 51),
    transactional: (attributes & ATTR_TRANSACTIONAL) !== 0,
    control: (attributes & ATTR_CONTROL) !== 0,
    recordsCount: buf.readInt32BE(pos + 57),
  };
}

export function controlTypeOf(buf: Buffer, pos: number): ControlType {
  const records: LogRecord[] = [];
  decodeRecords(buf, pos, '', 0, 0, Infinity, records, 1);
  return records[0]?.key?.readInt16BE(2) === 1 ? 'commit' : 'abort';
}

/**
 * Appends to `out` the records of the batch at buf[pos] whose offsets are in [from, to), at most
 * `max` of them in total. Keys, values and header values are views into `buf`, not copies; `inPlace`,
 * BatchRecords that make the key and value views only when asked for.
 */
export function decodeRecords(buf: Buffer, pos: number, topic: string, partition: number, from: number, to: number, out: LogRecord[], max: number, inPlace = false): void {
  const baseOffset = readI64(buf, pos);
  const baseTimestamp = readI64(buf, pos + 27);
  const count = buf.readInt32BE(pos + 57);
  cursor = pos + BATCH_HEADER_SIZE;
  for (let i = 0; i < count && out.length < max; i++) {
    const length = readVarint(buf);
    const end = cursor + length;
    cursor++;
    const timestamp = baseTimestamp + readVarint(buf);
    const offset = baseOffset + readVarint(buf);
    if (offset >= to) return;
    if (offset < from) {
      cursor = end;
      continue;
    }
    const keyLength = readVarint(buf);
    const keyStart = cursor;
    cursor += keyLength < 0 ? 0 : keyLength;
    const valueLength = readVarint(buf);
    const valueStart = cursor;
    cursor += valueLength < 0 ? 0 : valueLength;
    const headerCount = readVarint(buf);
    let headers = EMPTY_HEADERS;
    if (headerCount > 0) {
      const h: Record<string, Buffer> = {};
      for (let j = 0; j < headerCount; j++) {
        const kLength = readVarint(buf);
        const k = buf.toString('utf8', cursor, (cursor += kLength));
        const vLength = readVarint(buf);
        h[k] = vLength < 0 ? Buffer.alloc(0) : buf.subarray(cursor, (cursor += vLength));
      }
      headers = h;
    }
    cursor = end;
    out.push(
      inPlace
        ? new BatchRecord(topic, partition, offset, timestamp, headers, buf, keyStart, keyLength, valueStart, valueLength)
        : { topic, partition, offset, key: view(buf, keyStart, keyLength), value: view(buf, valueStart, valueLength), timestamp, headers },
    );
  }
}
