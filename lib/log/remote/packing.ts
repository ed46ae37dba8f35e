// Records across a thread boundary as a few arrays that are moved, not copied: structured clone of the
// records would copy every object, key, value and header on its own and hand the bytes over as
// Uint8Arrays, where the log's types promise Buffers; and building one small object per record on each
// side cost as much CPU as the processor's own work (the profile of 2026-12-03). Here the bytes are copied
// once into one buffer, the other fields go column by column into typed arrays, all of them transferred,
// and the other side takes Buffer views of the bytes, or, for a consumer that reads in place, none.
// Records read in place from one buffer (a consumer's batch, lib/log/batch-record.ts) are copied as the
// one span of it they lie in, with where each key and value starts: no view, no copy per record.
import { BatchRecord } from '../batch-record.js';
import type { Headers, LogRecord, ProduceRecord } from '../types.js';

type Packable = ProduceRecord | LogRecord;

/**
 * Per record NUMBERS_PER numbers (NaN when absent), two lengths (-1 for null) and where its key and
 * value start in `bytes`; headers as [record, name, start, length].
 */
export interface PackedRecords {
  readonly bytes: ArrayBuffer;
  readonly numbers: Float64Array;
  readonly lengths: Int32Array;
  readonly starts: Int32Array;
  readonly topics: readonly string[];
  readonly headers: readonly (readonly [number, string, number, number])[];
}

const NUMBERS_PER = 4; // partition, offset, timestamp, topic index

const headerBytes = (r: Packable) => {
  let size = 0;
  for (const name in r.headers) size += r.headers[name]!.length;
  return size;
};

/** The one buffer all the records were read from in place, and the span of it they lie in; undefined if there is none. */
function sharedSpan(records: readonly Packable[]): { from: Buffer; lo: number; hi: number } | undefined {
  const first = records[0];
  if (!(first instanceof BatchRecord)) return undefined;
  let lo = Infinity;
  let hi = 0;
  for (const r of records) {
    if (!(r instanceof BatchRecord) || r.bytes !== first.bytes) return undefined;
    if (r.keyLength >= 0) {
      lo = Math.min(lo, r.keyStart);
      hi = Math.max(hi, r.keyStart + r.keyLength);
    }
    if (r.valueLength >= 0) {
      lo = Math.min(lo, r.valueStart);
      hi = Math.max(hi, r.valueStart + r.valueLength);
    }
  }
  return { from: first.bytes, lo: Math.min(lo, hi), hi };
}

export function pack(records: readonly Packable[]): PackedRecords {
  const span = sharedSpan(records);
  let size = span === undefined ? 0 : span.hi - span.lo;
  for (const r of records) size += headerBytes(r) + (span === undefined ? (r.key?.length ?? 0) + (r.value?.length ?? 0) : 0);
  const bytes = new ArrayBuffer(size);
  const into = new Uint8Array(bytes);
  const numbers = new Float64Array(records.length * NUMBERS_PER);
  const lengths = new Int32Array(records.length * 2);
  const starts = new Int32Array(records.length * 2);
  const topics: string[] = [];
  const headers: [number, string, number, number][] = [];
  let at = 0;
  if (span !== undefined) {
    into.set(span.from.subarray(span.lo, span.hi));
    at = span.hi - span.lo;
  }
  const put = (b: Buffer | null) => {
    if (b === null) return -1;
    into.set(b, at);
    at += b.length;
    return b.length;
  };
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const topic = 'topic' in r ? r.topic : undefined;
    let topicIndex = topic === undefined ? -1 : topics.lastIndexOf(topic);
    if (topic !== undefined && topicIndex < 0) topicIndex = topics.push(topic) - 1;
    const n = i * NUMBERS_PER;
    numbers[n] = r.partition ?? NaN;
    numbers[n + 1] = 'offset' in r ? r.offset : NaN;
    numbers[n + 2] = r.timestamp ?? NaN;
    numbers[n + 3] = topicIndex < 0 ? NaN : topicIndex;
    if (span !== undefined && r instanceof BatchRecord) {
      lengths[i * 2] = r.keyLength;
      lengths[i * 2 + 1] = r.valueLength;
      starts[i * 2] = r.keyStart - span.lo;
      starts[i * 2 + 1] = r.valueStart - span.lo;
    } else {
      starts[i * 2] = at;
      lengths[i * 2] = put(r.key);
      starts[i * 2 + 1] = at;
      lengths[i * 2 + 1] = put(r.value);
    }
    for (const name in r.headers) headers.push([i, name, at, put(r.headers[name]!)]);
  }
  return { bytes, numbers, lengths, starts, topics, headers };
}

/** What a message carrying the records transfers. */
export const transferOf = (p: PackedRecords): ArrayBuffer[] => [p.bytes, p.numbers.buffer as ArrayBuffer, p.lengths.buffer as ArrayBuffer, p.starts.buffer as ArrayBuffer];

/** Each record's headers, as views of the bytes. */
function headersOf(p: PackedRecords): (Headers | undefined)[] {
  const out: Record<string, Buffer>[] = [];
  for (const [i, name, start, length] of p.headers) (out[i] ??= {})[name] = Buffer.from(p.bytes, start, length);
  return out;
}

/** The packed records with Buffer views of their bytes. */
function unpackEach<R>(p: PackedRecords, make: (n: number, key: Buffer | null, value: Buffer | null, headers: Headers | undefined) => R): R[] {
  const out = new Array<R>(p.lengths.length / 2);
  const headers = headersOf(p);
  const viewOf = (k: number) => (p.lengths[k]! < 0 ? null : Buffer.from(p.bytes, p.starts[k]!, p.lengths[k]!));
  for (let i = 0; i < out.length; i++) out[i] = make(i * NUMBERS_PER, viewOf(i * 2), viewOf(i * 2 + 1), headers[i]);
  return out;
}

export const unpackLogRecords = (p: PackedRecords): LogRecord[] =>
  unpackEach(p, (n, key, value, headers) => ({
    topic: p.topics[p.numbers[n + 3]!]!, partition: p.numbers[n]!, offset: p.numbers[n + 1]!, key, value, timestamp: p.numbers[n + 2]!, headers: headers ?? {},
  }));

/** The packed records read in place (ConsumerConfig.valuesInPlace): keys and values stay in the one buffer until asked for. */
export function unpackBatchRecords(p: PackedRecords): BatchRecord[] {
  const out = new Array<BatchRecord>(p.lengths.length / 2);
  const bytes = Buffer.from(p.bytes);
  const headers = headersOf(p);
  const { numbers, lengths, starts } = p;
  for (let i = 0; i < out.length; i++) {
    const n = i * NUMBERS_PER;
    out[i] = new BatchRecord(p.topics[numbers[n + 3]!]!, numbers[n]!, numbers[n + 1]!, numbers[n + 2]!, headers[i] ?? {}, bytes, starts[i * 2]!, lengths[i * 2]!, starts[i * 2 + 1]!, lengths[i * 2 + 1]!);
  }
  return out;
}

export const unpackProduceRecords = (p: PackedRecords): ProduceRecord[] =>
  unpackEach(p, (n, key, value, headers) => {
    const r: { -readonly [K in keyof ProduceRecord]: ProduceRecord[K] } = { key, value };
    const partition = p.numbers[n]!;
    const timestamp = p.numbers[n + 2]!;
    if (!Number.isNaN(timestamp)) r.timestamp = timestamp;
    if (!Number.isNaN(partition)) r.partition = partition;
    if (headers !== undefined) r.headers = headers;
    return r;
  });
