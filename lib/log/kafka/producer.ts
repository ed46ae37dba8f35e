// The Kafka backend's producers. Both are idempotent (acks=all, one request in flight per kafkajs
// producer and broker, so a retried batch can neither duplicate nor reorder), and both place records
// themselves with Java's murmur2 (lib/log/partitioner.ts), which is how each record's offset can be
// reported back.
//
// A plain send that fails for a reason that can pass (the broker down, a leader moving) is retried in
// place, before anything else is sent on its lane, until it is written or the producer closes: kafkajs gives
// a failed request's sequence numbers back, so the retry carries the same ones and the broker drops what it
// had already written (a broker killed after writing, before answering); and no later send overtakes it.
// Retried by its caller instead, after later sends had gone (ingest keeps several in flight), it was written
// after them, or twice when part of it had been (the chaos test saw both when the broker was killed). With
// several brokers, a send whose requests to some of them succeeded before kafkajs gave up is written again
// to those: at least once, never lost.
//
// The transactional producer follows kafkajs's model: a transaction is opened on the client, partitions
// and the consumer group's offsets are added to it as they are used (AddPartitionsToTxn,
// AddOffsetsToTxn + TxnOffsetCommit), and EndTxn commits or aborts. kafkajs has no KIP-447 fencing, so
// each input partition needs its own transactional id; a new producer with the same id fences the old.
import type { Producer as KafkajsProducer, RecordMetadata as KafkajsRecordMetadata, Transaction as KafkajsTransaction } from 'kafkajs';
import { FlowaggError, isFlowaggError } from '../../errors.js';
import { retry } from '../../retry.js';
import { LOG_CLOSED, LOG_TXN_STATE } from '../errors.js';
import { RECORD_OVERHEAD_BYTES } from '../record-batch.js';
import { checkRuns, recordsOfRuns } from '../record-runs.js';
import type { Producer, ProduceRecord, RecordMetadata, RecordRun, TopicPartitionOffset, Transaction, TransactionalProducer } from '../types.js';
import { COMPRESSION, createPartitioner } from './client.js';
import type { KafkaCluster } from './cluster.js';
import { KAFKA_BROKER, kafkaCall } from './errors.js';
import { placeRecords, toOffset, type PlacedRecords } from './records.js';

/** kafkajs's own producer, connected on first use, closed with the log. */
class LazyProducer {
  private connected: Promise<KafkajsProducer> | undefined;
  private closed = false;
  private readonly untrack: () => void;
  private keyless = 0;
  /** The last send queued on this producer; the next one starts after it settles. */
  private tail: Promise<unknown> = Promise.resolve();
  /** Aborted by close(): ends a send's retries. */
  readonly closing = new AbortController();

  constructor(
    private readonly cluster: KafkaCluster,
    private readonly transactionalId?: string,
  ) {
    this.untrack = cluster.track(() => this.close());
  }

  get(): Promise<KafkajsProducer> {
    if (this.closed) return Promise.reject(new FlowaggError(LOG_CLOSED, 'the producer is closed', { context: this.context() }));
    this.cluster.checkOpen('producer');
    if (this.connected === undefined) {
      const producer = this.cluster.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        createPartitioner,
        allowAutoTopicCreation: false,
        transactionTimeout: this.cluster.config.transactionTimeout,
        ...(this.transactionalId === undefined ? {} : { transactionalId: this.transactionalId }),
      });
      this.connected = kafkaCall('connecting a Kafka producer', this.context(), () => producer.connect()).then(
        () => producer,
        (err: unknown) => {
          this.connected = undefined;
          throw err;
        },
      );
    }
    return this.connected;
  }

  /**
   * Runs sends one at a time. kafkajs numbers an idempotent producer's batches when a send starts and
   * moves the numbers on only when it completes, so two concurrent sends to one partition carry the same
   * sequence and the broker refuses the second (OUT_OF_ORDER_SEQUENCE_NUMBER).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  async place(topic: string, records: readonly ProduceRecord[]): Promise<PlacedRecords> {
    return placeRecords(topic, records, await this.cluster.topicLayout(topic), this.keyless++);
  }

  context(): Record<string, string> {
    return this.transactionalId === undefined ? {} : { transactionalId: this.transactionalId };
  }

  /**
   * Drops the kafkajs producer, so that the next send starts a new one with a new producer id and fresh
   * sequence numbers. For a plain producer whose sequence state the broker no longer accepts.
   */
  async reset(): Promise<void> {
    const connected = this.connected;
    this.connected = undefined;
    if (connected !== undefined) await connected.then((p) => p.disconnect()).catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    this.untrack();
    const connected = this.connected;
    this.connected = undefined;
    if (connected !== undefined) await connected.then((p) => p.disconnect()).catch(() => undefined);
  }
}

const compressionOf = (cluster: KafkaCluster) => COMPRESSION[cluster.config.compression];

/** Each record's offset: records of one partition are appended in order from the partition's base offset. */
function recordMetadata(topic: string, placed: PlacedRecords, results: KafkajsRecordMetadata[]): RecordMetadata[] {
  const next = new Map<number, number>();
  for (const r of results) next.set(r.partition, toOffset(r.baseOffset ?? '-1', 'base offset'));
  return placed.partitions.map((partition) => {
    const offset = next.get(partition);
    if (offset === undefined || offset < 0) {
      throw new FlowaggError(KAFKA_BROKER, `Kafka acknowledged the send to ${topic} without an offset for partition ${partition}`, {
        context: { topic, partition },
      });
    }
    next.set(partition, offset + 1);
    return { topic, partition, offset };
  });
}

/**
 * Produce requests in flight at once: kafkajs keeps one per idempotent producer and broker (Java's keeps
 * up to five), so the producer spreads partitions over this many kafkajs producers, partition p always
 * on lane p % LANES, which keeps each partition's records in order while another lane's request is out.
 */
const LANES = 2;

/**
 * kafkajs sends one record batch per partition per request, and a broker refuses a batch above its
 * message.max.bytes (1 MiB by default) with MESSAGE_TOO_LARGE; a send is cut into slices whose records
 * for any one partition stay below this.
 */
const MAX_PARTITION_BATCH_BYTES = 768 * 1024;

function messageBytes(m: PlacedRecords['messages'][number]): number {
  let n = RECORD_OVERHEAD_BYTES + (m.key?.length ?? 0) + (m.value?.length ?? 0);
  for (const [k, v] of Object.entries(m.headers ?? {})) n += k.length + (Buffer.isBuffer(v) ? v.length : String(v).length);
  return n;
}

/** Consecutive slices of the placed records in which no partition gets more than `limit` bytes. */
export function slicesUnder(placed: PlacedRecords, limit: number): PlacedRecords[] {
  const slices: PlacedRecords[] = [];
  let bytes = new Map<number, number>();
  let start = 0;
  for (let i = 0; i < placed.messages.length; i++) {
    const partition = placed.partitions[i]!;
    const size = messageBytes(placed.messages[i]!);
    const sum = (bytes.get(partition) ?? 0) + size;
    if (sum > limit && i > start) {
      slices.push({ messages: placed.messages.slice(start, i), partitions: placed.partitions.slice(start, i) });
      start = i;
      bytes = new Map([[partition, size]]);
    } else {
      bytes.set(partition, sum);
    }
  }
  slices.push(start === 0 ? placed : { messages: placed.messages.slice(start), partitions: placed.partitions.slice(start) });
  return slices;
}

export class KafkaProducer implements Producer {
  private readonly lanes: LazyProducer[];
  /** The placing of the last send: each send places its records after the one before it. */
  private placing: Promise<unknown> = Promise.resolve();

  constructor(private readonly cluster: KafkaCluster) {
    this.lanes = Array.from({ length: LANES }, () => new LazyProducer(cluster));
  }

  async send(topic: string, records: readonly ProduceRecord[]): Promise<RecordMetadata[]> {
    if (records.length === 0) return [];
    const turn = this.placing.then(() => this.placeAndQueue(topic, records));
    this.placing = turn.catch(() => undefined);
    return (await Promise.all(await turn)).flat();
  }

  /** kafkajs takes a message object per record, so the runs become records here. */
  async sendRuns(topic: string, runs: readonly RecordRun[]): Promise<void> {
    checkRuns(topic, runs);
    await this.send(topic, recordsOfRuns(runs));
  }

  /**
   * Places the records (retrying in place while the topic's layout cannot be read) and queues each slice on
   * its lanes, all before the next send places anything: the lanes take sends in the order they were made,
   * and each lane runs its part of a slice after the part of the slice before, so a partition's records stay
   * in order across slices and sends, whatever fails and is retried.
   */
  private async placeAndQueue(topic: string, records: readonly ProduceRecord[]): Promise<Promise<RecordMetadata[]>[]> {
    const first = this.lanes[0]!;
    const placed = await retry(() => first.place(topic, records), { policy: SEND_RETRY, signal: first.closing.signal });
    if (placed.kind !== 'done') throw placed.error;
    return slicesUnder(placed.value, MAX_PARTITION_BATCH_BYTES).map((slice) => this.sendPlaced(topic, slice));
  }

  private async sendPlaced(topic: string, placed: PlacedRecords): Promise<RecordMetadata[]> {
    const perLane = this.lanes.map(() => [] as PlacedRecords['messages']);
    for (let i = 0; i < placed.messages.length; i++) perLane[placed.partitions[i]! % LANES]!.push(placed.messages[i]!);
    const compression = compressionOf(this.cluster);
    const results = await Promise.all(
      this.lanes.map(async (lane, i) => {
        const messages = perLane[i]!;
        if (messages.length === 0) return [];
        return lane.exclusive(async () => {
          const outcome = await retry(async () => {
            const producer = await lane.get();
            try {
              return await kafkaCall('sending records to Kafka', { topic }, () => producer.send({ topic, messages, acks: -1, compression }));
            } catch (err) {
              throw await this.recoverSequence(lane, err);
            }
          }, { policy: SEND_RETRY, signal: lane.closing.signal });
          if (outcome.kind === 'done') return outcome.value;
          throw outcome.error;
        });
      }),
    );
    return recordMetadata(topic, placed, results.flat());
  }

  /**
   * kafkajs's idempotent producer can lose track of its sequence numbers (a retried request some of whose
   * partitions had already been written), after which the broker refuses every further batch from it.
   * A new producer id starts the sequences afresh; the send is then worth retrying, at the cost that the
   * batch may be written twice (at-least-once for this send, never a loss).
   */
  private async recoverSequence(lane: LazyProducer, err: unknown): Promise<unknown> {
    const brokerError = isFlowaggError(err) ? err.context.brokerError : undefined;
    if (typeof brokerError !== 'string' || !SEQUENCE_ERRORS.has(brokerError)) return err;
    await lane.reset();
    return new FlowaggError(KAFKA_BROKER, `${(err as Error).message}; started a new idempotent producer`, { context: (err as FlowaggError).context, retriable: true, cause: err });
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }
}

/** Between the attempts of a send retried in place (kafkajs has retried each attempt itself before). */
const SEND_RETRY = { initialMs: 100, maxMs: 5000 } as const;

/** Broker answers that mean the producer's idempotence state is out of step with the broker's. */
const SEQUENCE_ERRORS = new Set(['OUT_OF_ORDER_SEQUENCE_NUMBER', 'UNKNOWN_PRODUCER_ID', 'INVALID_PRODUCER_ID_MAPPING']);

type TxnState = 'open' | 'committing' | 'aborting' | 'committed' | 'aborted' | 'failed';

class KafkaTransaction implements Transaction {
  private state: TxnState = 'open';

  constructor(
    private readonly owner: KafkaTransactionalProducer,
    private readonly producer: LazyProducer,
    private readonly txn: KafkajsTransaction,
    private readonly compression: ReturnType<typeof compressionOf>,
  ) {}

  get ended(): boolean {
    return this.state === 'committed' || this.state === 'aborted' || this.state === 'failed';
  }

  private guard(method: string): void {
    if (this.state !== 'open') {
      throw new FlowaggError(LOG_TXN_STATE, `transaction.${method}() called on a transaction that is ${this.state}`, {
        context: { transactionalId: this.owner.transactionalId, state: this.state },
      });
    }
  }

  /** A failed send or offset commit leaves the transaction only abortable, as in Kafka. */
  private async step<T>(doing: string, context: Record<string, string | number>, fn: () => Promise<T>): Promise<T> {
    try {
      return await kafkaCall(doing, { transactionalId: this.owner.transactionalId, ...context }, fn);
    } catch (err) {
      this.state = 'failed';
      await this.txn.abort().catch(() => undefined);
      throw err;
    }
  }

  async send(topic: string, records: readonly ProduceRecord[]): Promise<void> {
    this.guard('send');
    if (records.length === 0) return;
    const placed = await this.producer.place(topic, records);
    // Cut as KafkaProducer cuts (a commit's outputs and changelog easily exceed message.max.bytes), in order.
    for (const slice of slicesUnder(placed, MAX_PARTITION_BATCH_BYTES)) {
      await this.step('sending records in a transaction', { topic }, () =>
        this.txn.send({ topic, messages: slice.messages, acks: -1, compression: this.compression }),
      );
    }
  }

  async sendOffsets(groupId: string, offsets: readonly TopicPartitionOffset[]): Promise<void> {
    this.guard('sendOffsets');
    if (offsets.length === 0) return;
    const byTopic = new Map<string, { partition: number; offset: string }[]>();
    for (const o of offsets) {
      const list = byTopic.get(o.topic) ?? [];
      list.push({ partition: o.partition, offset: String(o.offset) });
      byTopic.set(o.topic, list);
    }
    const topics = [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
    await this.step('committing offsets in a transaction', { groupId }, () => this.txn.sendOffsets({ consumerGroupId: groupId, topics }));
  }

  async commit(): Promise<void> {
    this.guard('commit');
    this.state = 'committing';
    try {
      await kafkaCall('committing a transaction', { transactionalId: this.owner.transactionalId }, () => this.txn.commit());
      this.state = 'committed';
    } catch (err) {
      this.state = 'failed';
      await this.txn.abort().catch(() => undefined);
      throw err;
    }
  }

  async abort(): Promise<void> {
    if (this.state === 'failed' || this.state === 'aborted') return;
    this.guard('abort');
    this.state = 'aborting';
    try {
      await kafkaCall('aborting a transaction', { transactionalId: this.owner.transactionalId }, () => this.txn.abort());
    } finally {
      this.state = 'aborted';
    }
  }
}

export class KafkaTransactionalProducer implements TransactionalProducer {
  private readonly producer: LazyProducer;
  private current: KafkaTransaction | undefined;

  constructor(
    private readonly cluster: KafkaCluster,
    readonly transactionalId: string,
  ) {
    this.producer = new LazyProducer(cluster, transactionalId);
  }

  async begin(): Promise<Transaction> {
    if (this.current !== undefined && !this.current.ended) {
      throw new FlowaggError(LOG_TXN_STATE, `begin() called while a transaction of ${this.transactionalId} is still open`, {
        context: { transactionalId: this.transactionalId },
      });
    }
    const producer = await this.producer.get();
    // The first transaction registers the id with the coordinator (InitProducerId), fencing older producers.
    const txn = await kafkaCall('beginning a transaction', { transactionalId: this.transactionalId }, () => producer.transaction());
    this.current = new KafkaTransaction(this, this.producer, txn, compressionOf(this.cluster));
    return this.current;
  }

  close(): Promise<void> {
    return this.producer.close();
  }
}
