// Sending records: validate, route each record to its partition (explicit, Java murmur2 of the key, or
// one random partition per send for null keys), encode one batch per partition and append. Shared by
// the plain producer and transactions (which pass their producer id and the transactional flag).
import { FlowaggError } from '../../errors.js';
import { LOG_CLOSED, LOG_INVALID_ARGUMENT, LOG_KEY_REQUIRED } from '../errors.js';
import { partitionForKey } from '../partitioner.js';
import type { ProduceRecord, Producer, RecordMetadata } from '../types.js';
import { type BatchProducer, type EncodableRecord, NO_PRODUCER, encodeBatch } from '../record-batch.js';
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

export function appendRecords(topics: TopicRegistry, topic: string, records: readonly ProduceRecord[], producer: BatchProducer): AppendResult {
  const t = topics.get(topic);
  if (!Array.isArray(records)) throw new FlowaggError(LOG_INVALID_ARGUMENT, `send to "${topic}": records must be an array`, { context: { topic } });
  const count = t.partitions.length;
  const compacted = t.config.cleanupPolicy === 'compact';
  const nullKeyPartition = Math.floor(Math.random() * count);
  const now = Date.now();
  const byPartition = new Map<number, { indexes: number[]; records: EncodableRecord[] }>();
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    checkRecord(topic, r, i, compacted);
    const partition = r.partition ?? (r.key === null ? nullKeyPartition : partitionForKey(r.key, count));
    topics.partition(topic, partition);
    let group = byPartition.get(partition);
    if (group === undefined) byPartition.set(partition, (group = { indexes: [], records: [] }));
    group.records.push({ offsetDelta: group.records.length, timestamp: r.timestamp ?? now, key: r.key, value: r.value, headers: r.headers });
    group.indexes.push(i);
  }
  const metadata = new Array<RecordMetadata>(records.length);
  const partitions: PartitionLog[] = [];
  const acks: Promise<void>[] = [];
  for (const [partition, group] of byPartition) {
    const log = t.partitions[partition]!;
    const batch = encodeBatch(group.records, group.records.length - 1, producer);
    const { baseOffset, acknowledged } = log.append(batch, { producerId: producer.producerId, transactional: producer.transactional, recordsCount: group.records.length });
    group.indexes.forEach((index, k) => (metadata[index] = { topic, partition, offset: baseOffset + k }));
    partitions.push(log);
    acks.push(acknowledged);
  }
  return { metadata, partitions, acknowledged: Promise.all(acks).then(() => undefined) };
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
