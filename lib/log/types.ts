// The message log's contract, shared by the embedded backend (lib/log/embedded) and the Kafka backend
// (lib/log/kafka). Every service talks to the log only through these types; neither backend's own
// types or semantics leak through. lib/log/testing/contract.ts is the test suite both backends must pass.
//
// Conventions (Kafka's):
// - Offsets are dense per partition, start at 0, and are JS numbers (checked below 2^53).
// - A committed offset is the offset of the NEXT record to read, not of the last one read.
// - Timestamps are milliseconds since the Unix epoch.
// - A record with a null value is a tombstone: compaction eventually removes its key.

export type Offset = number;

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export interface TopicPartitionOffset extends TopicPartition {
  readonly offset: Offset;
}

export type Headers = Readonly<Record<string, Buffer>>;

export interface ProduceRecord {
  readonly key: Buffer | null;
  /** null is a tombstone. */
  readonly value: Buffer | null;
  /** Defaults to the time of the send. */
  readonly timestamp?: number;
  readonly headers?: Headers;
  /**
   * Explicit partition. Otherwise Java's murmur2 of the key modulo the partition count (lib/log/partitioner.ts),
   * or, for a null key, any partition.
   */
  readonly partition?: number;
}

/**
 * Keyed records written back to back into one buffer, as ingest's transcoder writes them: no object per
 * record, which a sender of hundreds of thousands of records a second cannot afford (they live until the
 * log has them durable, long enough for the garbage collector to copy them twice). Record i's key is
 * buf[bounds[3i], bounds[3i+1]) and its value buf[bounds[3i+1], bounds[3i+2]); each goes to the partition of
 * its key, with the send's time as its timestamp and no headers.
 */
export interface RecordRun {
  readonly buf: Buffer;
  readonly bounds: Int32Array;
}

/** Where a produced record landed. */
export type RecordMetadata = TopicPartitionOffset;

export interface LogRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: Offset;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly timestamp: number;
  readonly headers: Headers;
}

export interface Batch {
  readonly topic: string;
  readonly partition: number;
  /** In offset order; non-empty. With compaction or transactions, offsets may have gaps. */
  readonly records: readonly LogRecord[];
  /** The offset after the last record a read_committed reader may see now (last stable offset). */
  readonly highWatermark: Offset;
}

export interface TopicConfig {
  readonly topic: string;
  readonly partitions: number;
  /** Kafka only; the embedded log keeps one copy. */
  readonly replicationFactor?: number;
  readonly cleanupPolicy?: 'delete' | 'compact';
  readonly retentionMs?: number;
  readonly retentionBytes?: number;
  readonly segmentBytes?: number;
}

export interface TopicDescription {
  readonly topic: string;
  readonly partitions: number;
  readonly cleanupPolicy: 'delete' | 'compact';
}

export interface PartitionOffsets {
  readonly partition: number;
  /** First offset still in the log (retention moves it). */
  readonly low: Offset;
  /** Log end offset: the offset the next record appended will get. */
  readonly high: Offset;
}

export interface GroupDescription {
  readonly groupId: string;
  /** 'empty' when no consumer is a member; offsets may be reset only then. */
  readonly state: 'empty' | 'stable' | 'rebalancing' | 'dead' | 'unknown';
  readonly members: number;
}

export interface GroupPartitionLag extends TopicPartition {
  /** null when the group never committed on this partition. */
  readonly committed: Offset | null;
  readonly high: Offset;
  readonly lag: number;
}

export type OffsetResetSpec =
  | { readonly to: 'earliest' }
  | { readonly to: 'latest' }
  | { readonly to: 'datetime'; readonly timestamp: number }
  | { readonly to: 'offset'; readonly offset: Offset }
  | { readonly shiftBy: number };

export interface Producer {
  /** Resolves once every record is durable (embedded: on disk per the fsync policy; Kafka: acks=all). */
  send(topic: string, records: readonly ProduceRecord[]): Promise<RecordMetadata[]>;
  /** The same for records in runs, in the order given; where each landed is not told. */
  sendRuns(topic: string, runs: readonly RecordRun[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Consume-transform-produce as one atomic unit: the records sent and the input offsets committed in a
 * transaction become visible together on commit, or not at all. One transactional producer per input
 * partition (kafkajs has no KIP-447 fencing); a new producer with the same id fences the old one.
 */
export interface TransactionalProducer {
  readonly transactionalId: string;
  /** At most one transaction is open at a time. */
  begin(): Promise<Transaction>;
  close(): Promise<void>;
}

export interface Transaction {
  send(topic: string, records: readonly ProduceRecord[]): Promise<void>;
  /** Commits the group's offsets (next offset to read) as part of the transaction. */
  sendOffsets(groupId: string, offsets: readonly TopicPartitionOffset[]): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export interface ConsumerConfig {
  readonly groupId: string;
  /** Default read_committed: records of open or aborted transactions are never delivered. */
  readonly isolation?: 'read_committed' | 'read_uncommitted';
  /** Where a partition with no committed offset starts. Default 'earliest'. */
  readonly startFrom?: 'earliest' | 'latest';
  /** Upper bound on records per delivered batch. */
  readonly maxBatchRecords?: number;
  /**
   * A fast path for a reader of hundreds of thousands of records a second: records whose key and value
   * stay in the bytes they were read in until asked for (lib/log/batch-record.ts), so that none needs a
   * Buffer of its own. They are LogRecords in every field, but not plain objects: compare their fields.
   * The embedded log honours it; other backends deliver their usual records.
   */
  readonly valuesInPlace?: boolean;
}

export interface ConsumerHandlers {
  /**
   * Called with each batch, one at a time per partition. When it resolves the consumer's position moves
   * past the batch; nothing is committed until `commit` is called. When it throws, the same records are
   * delivered again after a backoff.
   */
  eachBatch(batch: Batch): Promise<void>;
  /** Partitions gained in a rebalance, before their first batch. */
  onAssign?(partitions: readonly TopicPartition[]): Promise<void> | void;
  /** Partitions lost in a rebalance (or on stop), after their last batch completed. */
  onRevoke?(partitions: readonly TopicPartition[]): Promise<void> | void;
  /**
   * The running consumer stopped for good (Kafka: it crashed and will not rejoin the group): nothing more
   * is delivered, and its owner must replace it (lib/service/supervisor.ts).
   */
  onFailure?(err: unknown): void;
}

export interface Consumer {
  subscribe(topics: readonly string[]): Promise<void>;
  /** Joins the group and starts delivering; resolves once it is running. */
  run(handlers: ConsumerHandlers): Promise<void>;
  commit(offsets: readonly TopicPartitionOffset[]): Promise<void>;
  /** Moves the position of an assigned partition; the next batch starts there. */
  seek(target: TopicPartitionOffset): void;
  pause(partitions: readonly TopicPartition[]): void;
  resume(partitions: readonly TopicPartition[]): void;
  assignment(): TopicPartition[];
  /** Leaves the group after the batches in flight complete. */
  stop(): Promise<void>;
}

export interface ReaderConfig {
  /** Default read_committed: records of open or aborted transactions are never returned. */
  readonly isolation?: 'read_committed' | 'read_uncommitted';
}

export interface FetchOptions {
  /** Upper bound of records returned. Default 10,000. */
  readonly maxRecords?: number;
  /** When nothing is readable at the offset yet, how long to wait for a record (ms); 0, the default, returns at once. */
  readonly maxWaitMs?: number;
}

export interface FetchResult {
  /** In offset order; empty when nothing was readable within the wait. */
  readonly records: readonly LogRecord[];
  /** The offset to fetch next: past the records returned and what was skipped (transaction markers, aborted or compacted records). */
  readonly next: Offset;
  /** The offset after the last record this reader may see now: the last stable offset for read_committed, else the log end. */
  readonly highWatermark: Offset;
}

/**
 * Reads topic-partitions from an offset, without joining a consumer group and without committing
 * anything: for restoring state from a changelog, and for streaming a topic to clients. Concurrent
 * fetches are allowed.
 */
export interface Reader {
  /**
   * Records of one topic-partition from `offset`. An offset below the log start reads from the log start
   * (retention removed what was there: records[0].offset says where it resumed); one beyond the log end
   * reads from the log end.
   */
  fetch(tp: TopicPartition, offset: Offset, opts?: FetchOptions): Promise<FetchResult>;
  /** Ends fetches waiting for records (they resolve with what they have); later fetches are refused. */
  close(): Promise<void>;
}

export interface Admin {
  /** Creates the topics that do not exist yet; an existing topic is left as it is. */
  createTopics(topics: readonly TopicConfig[]): Promise<void>;
  listTopics(): Promise<TopicDescription[]>;
  fetchTopicOffsets(topic: string): Promise<PartitionOffsets[]>;
  /** Per partition, the first offset whose timestamp is >= `timestamp`, or the log end offset. */
  fetchOffsetsByTimestamp(topic: string, timestamp: number): Promise<TopicPartitionOffset[]>;
  listGroups(): Promise<GroupDescription[]>;
  fetchGroupLag(groupId: string): Promise<GroupPartitionLag[]>;
  /** Refuses with FLOWAGG_ERR_LOG_GROUP_ACTIVE while the group has members. Returns the new offsets. */
  resetGroupOffsets(groupId: string, topic: string, spec: OffsetResetSpec): Promise<TopicPartitionOffset[]>;
}

export interface MessageLog {
  readonly backend: 'embedded' | 'kafka';
  producer(): Producer;
  transactionalProducer(transactionalId: string): TransactionalProducer;
  consumer(config: ConsumerConfig): Consumer;
  reader(config?: ReaderConfig): Reader;
  admin(): Admin;
  close(): Promise<void>;
}
