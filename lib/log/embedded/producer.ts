// Sending records: validate, route each record to its partition (explicit, Java murmur2 of the key, or
// one random partition per send for null keys), encode one batch per partition and append. Shared by
// the plain producer and transactions (which pass their producer id and the transactional flag).
import { FlowaggError } from '../../errors.js';
import { LOG_CLOSED, LOG_INVALID_ARGUMENT, LOG_KEY_REQUIRED } from '../errors.js';
import { partitionForKey } from '../partitioner.js';
import type { ProduceRecord, Producer, RecordMetadata, RecordRun } from '../types.js';
import { appendRuns } from './append-runs.js';
import { appendPooled, batchBuffer } from './batch-buffers.js';
import { type BatchProducer, NO_PRODUCER, batchEnd, encodeBatch } from '../record-batch.js';
import type { PartitionLog } from './partition-log.js';
import type { TopicRegistry } from './topics.js';

export interface AppendResult {
  readonly metadata: RecordMetadata[];
  readonly partitions: PartitionLog[];
  /** Resolves once every batch is acknowledged. */
  readonly acknowledged: Promise<void>;
}

/** Why the record can never be sent, or null. Runs per record on the hot path, so it allocates nothing when valid. */
function recordProblem(r: ProduceRecord): string | null {
  if (typeof r !== 'object' || r === null) return 'is not a record object';
  if (r.key !== null && !Buffer.isBuffer(r.key)) return 'key must be a Buffer or null';
  if (r.value !== null && !Buffer.isBuffer(r.value)) return 'value must be a Buffer or null';
  if (r.timestamp !== undefined && !(Number.isSafeInteger(r.timestamp) && r.timestamp >= 0)) return `timestamp ${r.timestamp} is not a non-negative integer of milliseconds`;
  if (r.headers !== undefined) {
    for (const k in r.headers) if (!Buffer.isBuffer(r.headers[k])) return `header "${k}" must be a Buffer`;
  }
  return null;
}

function checkRecord(topic: string, r: ProduceRecord, i: number, compacted: boolean): void {
  const problem = recordProblem(r);
  if (problem !== null) throw new FlowaggError(LOG_INVALID_ARGUMENT, `record ${i} sent to "${topic}": ${problem}`, { context: { topic, index: i } });
  if (compacted && r.key === null) {
    throw new FlowaggError(LOG_KEY_REQUIRED, `record ${i} sent to compacted topic "${topic}" has no key`, { context: { topic, index: i } });
  }
}

/** The records of a partition, and (when the send went to several) their indexes in the send. */
interface PartitionGroup {
  readonly records: readonly ProduceRecord[];
  readonly indexes: number[] | null;
}

/**
 * Validates and routes the records, then appends them to each partition in batches. A send mostly goes to
 * one partition (a processor's outputs and changelog; ingest's batches by key are the exception), and then
 * the records are encoded as given: no object per record. Transactions ask for no metadata.
 */
export function appendRecords(topics: TopicRegistry, topic: string, records: readonly ProduceRecord[], producer: BatchProducer, withMetadata = true): AppendResult {
  const t = topics.get(topic);
  if (!Array.isArray(records)) throw new FlowaggError(LOG_INVALID_ARGUMENT, `send to "${topic}": records must be an array`, { context: { topic } });
  const count = t.partitions.length;
  const compacted = t.config.cleanupPolicy === 'compact';
  const nullKeyPartition = Math.floor(Math.random() * count);
  const routes = new Int32Array(records.length);
  let single = true;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    checkRecord(topic, r, i, compacted);
    const partition = r.partition ?? (r.key === null ? nullKeyPartition : partitionForKey(r.key, count));
    if (i === 0 || partition !== routes[0]) topics.partition(topic, partition);
    routes[i] = partition;
    if (partition !== routes[0]) single = false;
  }
  const groups: Map<number, PartitionGroup> = records.length === 0 ? new Map() : single ? new Map([[routes[0]!, { records, indexes: null }]]) : groupByPartition(records, routes);
  const now = Date.now();
  const metadata: RecordMetadata[] = withMetadata ? new Array<RecordMetadata>(records.length) : [];
  const partitions: PartitionLog[] = [];
  const acks: Promise<void>[] = [];
  for (const [partition, group] of groups) {
    const log = t.partitions[partition]!;
    const all = group.records;
    for (let from = 0; from < all.length; ) {
      const to = batchEnd(from, all.length, (i) => payloadBytes(all[i]!));
      const batch = from === 0 && to === all.length ? all : all.slice(from, to);
      const { baseOffset, acknowledged } = appendPooled(log, encodeBatch(batch, batch.length - 1, producer, now, false, batchBuffer), { producerId: producer.producerId, transactional: producer.transactional, recordsCount: batch.length });
      if (withMetadata) for (let k = from; k < to; k++) metadata[group.indexes?.[k] ?? k] = { topic, partition, offset: baseOffset + k - from };
      acks.push(acknowledged);
      from = to;
    }
    partitions.push(log);
  }
  return { metadata, partitions, acknowledged: Promise.all(acks).then(() => undefined) };
}

/** A record's key, value and headers in bytes (batchEnd adds RECORD_OVERHEAD_BYTES). */
function payloadBytes(r: ProduceRecord): number {
  let size = (r.key?.length ?? 0) + (r.value?.length ?? 0);
  for (const k in r.headers) size += k.length + r.headers[k]!.length;
  return size;
}

/** The records of each partition, in the order sent. */
function groupByPartition(records: readonly ProduceRecord[], routes: Int32Array): Map<number, PartitionGroup> {
  const groups = new Map<number, { records: ProduceRecord[]; indexes: number[] }>();
  for (let i = 0; i < records.length; i++) {
    let group = groups.get(routes[i]!);
    if (group === undefined) groups.set(routes[i]!, (group = { records: [], indexes: [] }));
    group.records.push(records[i]!);
    group.indexes.push(i);
  }
  return groups;
}

export class EmbeddedProducer implements Producer {
  private closed = false;

  constructor(private readonly topics: TopicRegistry) {}

  async send(topic: string, records: readonly ProduceRecord[]): Promise<RecordMetadata[]> {
    if (this.closed) throw new FlowaggError(LOG_CLOSED, 'send on a closed producer', { context: { topic } });
    const result = appendRecords(this.topics, topic, records, NO_PRODUCER);
    await result.acknowledged;
    return result.metadata;
  }

  async sendRuns(topic: string, runs: readonly RecordRun[]): Promise<void> {
    if (this.closed) throw new FlowaggError(LOG_CLOSED, 'send on a closed producer', { context: { topic } });
    await appendRuns(this.topics, topic, runs, NO_PRODUCER);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
