// A reader of Kafka without a consumer group: Fetch requests sent straight to each partition's leader.
// kafkajs has no manual assignment (its consumers always join a group), and a throwaway group would cost
// a join and a rebalance per reader and leave groups behind on the broker. kafkajs's cluster layer does
// what a reader needs (metadata, leaders, connections, SASL/TLS, the Fetch request and the record-batch
// decoder with aborted-transaction filtering); its constructor is private to the Kafka client, so it is
// taken from there (kafkajs 2.2.4 is pinned, see kafkajs.ts). Offsets and isolation are as in a group
// consumer; nothing is committed.
import type { Kafka, KafkaMessage } from 'kafkajs';
import { createRequire } from 'node:module';
import { FlowaggError } from '../../errors.js';
import { LOG_PARTITION_OUT_OF_RANGE } from '../errors.js';
import { checkFetch } from '../fetch-options.js';
import type { FetchOptions, FetchResult, Offset, Reader, ReaderConfig, TopicPartition } from '../types.js';
import type { KafkaCluster } from './cluster.js';
import { kafkaError } from './errors.js';
import { fromKafkaMessage, toOffset } from './records.js';

const require = createRequire(import.meta.url);

/** Bytes asked for per fetch: about 13,000 300-byte records. */
const FETCH_MAX_BYTES = 4 * 2 ** 20;
/** Kafka's isolation levels in the Fetch request. */
const READ_UNCOMMITTED = 0;
const READ_COMMITTED = 1;
/** Metadata or leadership changed under the reader: refresh and fetch again. */
const STALE_METADATA = new Set(['NOT_LEADER_FOR_PARTITION', 'NOT_LEADER_OR_FOLLOWER', 'LEADER_NOT_AVAILABLE', 'FENCED_LEADER_EPOCH', 'UNKNOWN_LEADER_EPOCH', 'REPLICA_NOT_AVAILABLE']);
const MAX_ATTEMPTS = 5;

interface PartitionData {
  partition: number;
  highWatermark: string;
  lastStableOffset?: string;
  abortedTransactions?: unknown[];
  messages: (KafkaMessage & { isControlRecord?: boolean })[];
}

interface FetchedBatch {
  readonly messages: KafkaMessage[];
  readonly messagesWithinOffset: (KafkaMessage & { isControlRecord?: boolean })[];
  readonly rawMessages: KafkaMessage[];
}

/** The parts of kafkajs's internal Cluster and Broker a reader uses. */
interface KafkajsCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadata(): Promise<void>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(args: { nodeId: string }): Promise<{ fetch(request: unknown): Promise<{ responses: { topicName: string; partitions: PartitionData[] }[] }> }>;
  fetchTopicsOffset(topics: { topic: string; fromBeginning: boolean; partitions: { partition: number }[] }[]): Promise<{ topic: string; partitions: { partition: number; offset: string }[] }[]>;
}

type Batch = new (topic: string, fetchedOffset: string, partitionData: PartitionData) => FetchedBatch;
const KafkajsBatch = require('kafkajs/src/consumer/batch.js') as Batch;
const InstrumentationEmitter = require('kafkajs/src/instrumentation/emitter.js') as new () => unknown;

/** kafkajs's Client keeps its cluster factory under a private symbol. */
function clusterFactory(kafka: Kafka): (opts: Record<string, unknown>) => KafkajsCluster {
  const symbol = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  const factory = symbol === undefined ? undefined : (kafka as unknown as Record<symbol, unknown>)[symbol];
  if (typeof factory !== 'function') throw new Error('kafkajs has no cluster factory where 2.2.4 keeps it; the Kafka reader needs kafkajs 2.2.4');
  return factory as (opts: Record<string, unknown>) => KafkajsCluster;
}

interface KafkajsErrorShape {
  name?: string;
  type?: string;
}

export class KafkaReader implements Reader {
  private readonly isolation: number;
  private connection: Promise<KafkajsCluster> | undefined;
  private readonly knownTopics = new Set<string>();
  private closed = false;
  private readonly untrack: () => void;

  constructor(
    private readonly owner: KafkaCluster,
    config: ReaderConfig,
  ) {
    this.isolation = config.isolation === 'read_uncommitted' ? READ_UNCOMMITTED : READ_COMMITTED;
    this.untrack = owner.track(() => this.close());
  }

  private connect(): Promise<KafkajsCluster> {
    this.connection ??= (async () => {
      const cluster = clusterFactory(this.owner.kafka)({
        metadataMaxAge: 300_000,
        allowAutoTopicCreation: false,
        instrumentationEmitter: new InstrumentationEmitter(),
        isolationLevel: this.isolation,
      });
      await cluster.connect();
      return cluster;
    })().catch((err: unknown) => {
      this.connection = undefined;
      throw kafkaError(err, 'connecting a Kafka reader');
    });
    return this.connection;
  }

  async fetch(tp: TopicPartition, offset: Offset, opts: FetchOptions = {}): Promise<FetchResult> {
    const maxRecords = checkFetch(this.closed, tp, offset, opts);
    const cluster = await this.connect();
    let from = offset;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.fetchOnce(cluster, tp, from, maxRecords, opts.maxWaitMs ?? 0);
      } catch (err) {
        // close() ended a fetch waiting on the broker: it ends with nothing, as the contract says.
        if (this.closed) return { records: [], next: from, highWatermark: from };
        const e = err as KafkajsErrorShape;
        if (err instanceof FlowaggError || attempt >= MAX_ATTEMPTS) throw kafkaError(err, 'fetching records', { topic: tp.topic, partition: tp.partition, offset: from });
        if (e.name === 'KafkaJSOffsetOutOfRange') {
          from = await this.clamp(cluster, tp, from);
        } else if ((e.type !== undefined && STALE_METADATA.has(e.type)) || e.name === 'KafkaJSConnectionError' || e.name === 'KafkaJSBrokerNotFound') {
          await cluster.refreshMetadata().catch(() => undefined);
        } else {
          throw kafkaError(err, 'fetching records', { topic: tp.topic, partition: tp.partition, offset: from });
        }
      }
    }
  }

  private async fetchOnce(cluster: KafkajsCluster, tp: TopicPartition, offset: Offset, maxRecords: number, maxWaitMs: number): Promise<FetchResult> {
    if (!this.knownTopics.has(tp.topic)) {
      await cluster.addTargetTopic(tp.topic);
      this.knownTopics.add(tp.topic);
    }
    const leaders = cluster.findLeaderForPartitions(tp.topic, [tp.partition]);
    const nodeId = Object.keys(leaders).find((id) => leaders[id]!.includes(tp.partition));
    if (nodeId === undefined) {
      throw new FlowaggError(LOG_PARTITION_OUT_OF_RANGE, `topic ${tp.topic} has no partition ${tp.partition} (or it has no leader)`, { context: { ...tp } });
    }
    const broker = await cluster.findBroker({ nodeId });
    const response = await broker.fetch({
      replicaId: -1,
      isolationLevel: this.isolation,
      maxWaitTime: maxWaitMs,
      minBytes: 1,
      maxBytes: FETCH_MAX_BYTES,
      topics: [{ topic: tp.topic, partitions: [{ partition: tp.partition, fetchOffset: String(offset), maxBytes: FETCH_MAX_BYTES }] }],
    });
    const data = response.responses.find((r) => r.topicName === tp.topic)?.partitions.find((p) => p.partition === tp.partition);
    if (data === undefined) return { records: [], next: offset, highWatermark: offset };
    const highWatermark = toOffset(this.isolation === READ_COMMITTED && data.lastStableOffset !== undefined && data.lastStableOffset !== '-1' ? data.lastStableOffset : data.highWatermark);
    const batch = new KafkajsBatch(tp.topic, String(offset), data);
    const visible = batch.messages.length > maxRecords ? batch.messages.slice(0, maxRecords) : batch.messages;
    const records = visible.map((m) => fromKafkaMessage(tp.topic, tp.partition, m));
    let next: number;
    if (visible.length < batch.messages.length) next = records[records.length - 1]!.offset + 1;
    else if (batch.messagesWithinOffset.length > 0) next = toOffset(batch.messagesWithinOffset[batch.messagesWithinOffset.length - 1]!.offset) + 1;
    // Only records before the offset came back: the rest of their batch was compacted away.
    else if (batch.rawMessages.length > 0) next = Math.min(offset + 1, highWatermark);
    else next = Math.min(offset, highWatermark);
    return { records, next, highWatermark };
  }

  /** The log start when `offset` is below it, else the log end. */
  private async clamp(cluster: KafkajsCluster, tp: TopicPartition, offset: Offset): Promise<Offset> {
    const at = async (fromBeginning: boolean) => {
      const [topic] = await cluster.fetchTopicsOffset([{ topic: tp.topic, fromBeginning, partitions: [{ partition: tp.partition }] }]);
      return toOffset(topic!.partitions.find((p) => p.partition === tp.partition)!.offset);
    };
    const low = await at(true);
    return offset < low ? low : at(false);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.untrack();
    const connection = this.connection;
    this.connection = undefined;
    if (connection !== undefined) await connection.then((c) => c.disconnect()).catch(() => undefined);
  }
}
