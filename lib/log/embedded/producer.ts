// Sending records: validate, route each record to its partition (explicit, Java murmur2 of the key, or
// one random partition per send for null keys), encode one batch per partition and append. Shared by
// the plain producer and transactions (which pass their producer id and the transactional flag).
import { FlowaggError } from '../../errors.js';
import { LOG_CLOSED, LOG_INVALID_ARGUMENT, LOG_KEY_REQUIRED } from '../errors.js';
import { partitionForKey } from '../partitioner.js';
import type { ProduceRecord, Producer, RecordMetadata } from '../types.js';
import { type BatchProducer, NO_PRODUCER, encodeBatch } from '../record-batch.js';
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

/**
 * Validates and routes the records, then appends one batch per partition. A send mostly goes to one
 * partition (a processor's outputs and changelog, ingest's batches by key are the exception), and then
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
  const groups = records.length === 0 ? new Map<number, readonly ProduceRecord[]>() : single ? new Map([[routes[0]!, records]]) : groupByPartition(records, routes);
  const now = Date.now();
  const metadata: RecordMetadata[] = withMetadata ? new Array<RecordMetadata>(records.length) : [];
  const next = new Map<number, number>();
  const partitions: PartitionLog[] = [];
  const acks: Promise<void>[] = [];
  for (const [partition, group] of groups) {
    const log = t.partitions[partition]!;
    const { baseOffset, acknowledged } = log.append(encodeBatch(group, group.length - 1, producer, now), { producerId: producer.producerId, transactional: producer.transactional, recordsCount: group.length });
    next.set(partition, baseOffset);
    partitions.push(log);
    acks.push(acknowledged);
  }
  if (withMetadata) {
    for (let i = 0; i < records.length; i++) {
      const partition = routes[i]!;
      const offset = next.get(partition)!;
      next.set(partition, offset + 1);
      metadata[i] = { topic, partition, offset };
    }
  }
  return { metadata, partitions, acknowledged: Promise.all(acks).then(() => undefined) };
}

/** The records of each partition, in the order sent. */
function groupByPartition(records: readonly ProduceRecord[], routes: Int32Array): Map<number, ProduceRecord[]> {
  const groups = new Map<number, ProduceRecord[]>();
  for (let i = 0; i < records.length; i++) {
    const group = groups.get(routes[i]!);
    if (group === undefined) groups.set(routes[i]!, [records[i]!]);
    else group.push(records[i]!);
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

  async close(): Promise<void> {
    this.closed = true;
  }
}
