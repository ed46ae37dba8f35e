// Records across a thread boundary as a few arrays that are moved, not copied: structured clone of the
// records would copy every object, key, value and header on its own and hand the bytes over as
// Uint8Arrays, where the log's types promise Buffers; and building one small object per record on each
// side cost as much CPU as the processor's own work (the profile of 2026-12-03). Here the bytes are copied
// once into one buffer, the other fields go column by column into typed arrays, all of them transferred,
// and the other side takes Buffer views of the bytes.
import type { Headers, LogRecord, ProduceRecord } from '../types.js';

type Packable = ProduceRecord | LogRecord;

/** Per record NUMBERS_PER numbers (NaN when absent) and two lengths (-1 for null); headers as [record, name, length]. */
export interface PackedRecords {
  readonly bytes: ArrayBuffer;
  readonly numbers: Float64Array;
  readonly lengths: Int32Array;
  readonly topics: readonly string[];
  readonly headers: readonly (readonly [number, string, number])[];
}

const NUMBERS_PER = 4; // partition, offset, timestamp, topic index

const sizeOf = (r: Packable) => {
  let size = (r.key?.length ?? 0) + (r.value?.length ?? 0);
  for (const name in r.headers) size += r.headers[name]!.length;
  return size;
};

export function pack(records: readonly Packable[]): PackedRecords {
  let size = 0;
  for (const r of records) size += sizeOf(r);
  const bytes = new ArrayBuffer(size);
  const into = new Uint8Array(bytes);
  const numbers = new Float64Array(records.length * NUMBERS_PER);
  const lengths = new Int32Array(records.length * 2);
  const topics: string[] = [];
  const headers: [number, string, number][] = [];
  let at = 0;
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
    lengths[i * 2] = put(r.key);
    lengths[i * 2 + 1] = put(r.value);
    for (const name in r.headers) headers.push([i, name, put(r.headers[name]!)]);
  }
  return { bytes, numbers, lengths, topics, headers };
}

/** What a message carrying the records transfers. */
export const transferOf = (p: PackedRecords): ArrayBuffer[] => [p.bytes, p.numbers.buffer as ArrayBuffer, p.lengths.buffer as ArrayBuffer];

/** Walks the packed records in order, with Buffer views of their bytes. */
function unpackEach<R>(p: PackedRecords, make: (n: number, key: Buffer | null, value: Buffer | null, headers: Headers | undefined) => R): R[] {
  const out = new Array<R>(p.lengths.length / 2);
  let at = 0;
  let h = 0;
  const take = (len: number): Buffer | null => {
    if (len < 0) return null;
    const b = Buffer.from(p.bytes, at, len);
    at += len;
    return b;
  };
  for (let i = 0; i < out.length; i++) {
    const key = take(p.lengths[i * 2]!);
    const value = take(p.lengths[i * 2 + 1]!);
    let headers: Record<string, Buffer> | undefined;
    for (; h < p.headers.length && p.headers[h]![0] === i; h++) (headers ??= {})[p.headers[h]![1]] = take(p.headers[h]![2])!;
    out[i] = make(i * NUMBERS_PER, key, value, headers);
  }
  return out;
}

export const unpackLogRecords = (p: PackedRecords): LogRecord[] =>
  unpackEach(p, (n, key, value, headers) => ({
    topic: p.topics[p.numbers[n + 3]!]!, partition: p.numbers[n]!, offset: p.numbers[n + 1]!, key, value, timestamp: p.numbers[n + 2]!, headers: headers ?? {},
  }));

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
