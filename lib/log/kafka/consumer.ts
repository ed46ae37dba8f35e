// The Kafka backend's consumer: a kafkajs group consumer driven so that it keeps the log's semantics.
// - No auto-commit and no auto-resolve: the position moves past a batch only when eachBatch resolves,
//   and nothing is committed until commit() is called.
// - A batch whose handler throws is delivered again, after a backoff, to the same consumer (heartbeats go
//   on meanwhile); a seek, a pause, a rebalance or stop() ends the retries.
// - kafkajs rebalances eagerly: every partition is given up, and the ones this consumer gets back restart
//   from their committed offsets. The consumer seeks those back to where it was, so that a rebalance
//   looks as the log promises: only partitions gained or lost are reported, and kept ones carry on.
// - A crash kafkajs does not restart from (it gave up rejoining) goes to onFailure: the owner replaces the
//   consumer, since this one delivers nothing more. Once stop() was called, kafkajs restarts from none.
// - kafkajs resolves a commit it did not make while its runner is not running (a crash it restarts from,
//   with the broker gone): commit() checks for kafkajs's own report of each offset and fails, retriable,
//   without it. Taken as done, such a commit had the next owner deliver a batch again that a destination
//   already held under another range (chaos seed 965301).
import type { Consumer as KafkajsConsumer, EachBatchPayload } from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';
import { FlowaggError, errorMessage } from '../../errors.js';
import { Backoff } from '../../retry.js';
import { componentLogger } from '../../telemetry/logger.js';
import { LOG_CONSUMER_STATE } from '../errors.js';
import type { Consumer, ConsumerConfig, ConsumerHandlers, TopicPartition, TopicPartitionOffset } from '../types.js';
import type { KafkaCluster } from './cluster.js';
import { kafkaCall, kafkaError } from './errors.js';
import { fromKafkaMessage } from './records.js';

const logger = componentLogger('log.kafka.consumer');

const RETRY_BACKOFF = { initialMs: 100, maxMs: 5000 };
/** How long an empty fetch waits on the broker: bounds how long stop() waits for a fetch in flight. */
const FETCH_MAX_WAIT_MS = 250;
/**
 * kafkajs fetches again only once every batch of the last fetch is handled, so each fetch should carry a
 * lot: 4 MiB per partition (about 13,000 300-byte records), 32 MiB per fetch.
 */
const FETCH_MAX_BYTES_PER_PARTITION = 4 * 2 ** 20;
const FETCH_MAX_BYTES = 32 * 2 ** 20;

type ConsumerState = 'created' | 'subscribed' | 'running' | 'stopping' | 'stopped';

/** How long a consumer waits before joining again after kafkajs gave up on the group's coordinator. */
const REJOIN_DELAY_MS = 1000;

/** kafkajs's crash for a group coordinator not (yet) there, which it does not restart from. */
function coordinatorNotReady(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'KafkaJSGroupCoordinatorNotFound';
}

const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;
/** kafkajs reports committed offsets as Longs or strings: String() of each is the decimal. (Kafka's topic names have no '/'.) */
const commitKey = (topic: string, partition: number, offset: unknown) => `${topic}/${partition}@${String(offset)}`;

function byTopic(partitions: readonly TopicPartition[]): { topic: string; partitions: number[] }[] {
  const grouped = new Map<string, number[]>();
  for (const p of partitions) grouped.set(p.topic, [...(grouped.get(p.topic) ?? []), p.partition]);
  return [...grouped].map(([topic, list]) => ({ topic, partitions: list }));
}

export class KafkaConsumer implements Consumer {
  private state: ConsumerState = 'created';
  private topics: string[] = [];
  private readonly consumer: KafkajsConsumer;
  private assigned: TopicPartition[] = [];
  private readonly paused = new Set<string>();
  /** Per assigned partition, the offset after the last batch delivered (or the last seek). */
  private readonly positions = new Map<string, number>();
  /** onRevoke/onAssign calls, chained so that they run in order and before the next batch. */
  private assignmentSettled: Promise<void> = Promise.resolve();
  private handlers: ConsumerHandlers | undefined;
  private readonly untrack: () => void;
  /**
   * Settles on the first group join, or on stop() before it. kafkajs's run() returns even when that join
   * failed (a coordinator still loading, say) and retries it in the background; run() waits for it instead.
   */
  private readonly joined: Promise<void>;
  private endJoinWait!: () => void;
  private hasJoined = false;
  /** Per commit() in flight, the offsets kafkajs has not yet reported committed. */
  private readonly unconfirmed = new Set<Set<string>>();

  constructor(
    private readonly cluster: KafkaCluster,
    private readonly config: ConsumerConfig,
  ) {
    const sessionTimeout = cluster.config.sessionTimeout;
    this.consumer = cluster.kafka.consumer({
      groupId: config.groupId,
      readUncommitted: config.isolation === 'read_uncommitted',
      sessionTimeout,
      heartbeatInterval: Math.max(100, Math.min(3000, Math.floor(sessionTimeout / 3))),
      rebalanceTimeout: Math.max(sessionTimeout, 60_000),
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: FETCH_MAX_WAIT_MS,
      maxBytesPerPartition: FETCH_MAX_BYTES_PER_PARTITION,
      maxBytes: FETCH_MAX_BYTES,
      // kafkajs decides on a restart after a crash once its own disconnect() is done: a stop() that came
      // meanwhile cleared no timer yet, and the restarted consumer went on for good against a closed log,
      // keeping the process from exiting (chaos seed 270383: ingest's templates consumer after a failed start).
      retry: { restartOnFailure: async () => this.state === 'running' },
    });
    let failed!: (err: unknown) => void;
    this.joined = new Promise<void>((resolve, reject) => {
      this.endJoinWait = resolve;
      failed = reject;
    });
    this.joined.catch(() => undefined);
    this.consumer.on(this.consumer.events.GROUP_JOIN, (event) => {
      this.onGroupJoin(event.payload.memberAssignment);
      this.hasJoined = true;
      this.endJoinWait();
    });
    this.consumer.on(this.consumer.events.CRASH, (event) => {
      const { error, restart } = event.payload;
      // kafkajs gives up on a group coordinator not found, though a broker just started elects one within
      // seconds (chaos seed 349851: ingest's first start on fresh topics, "coordinator loading", then this).
      const rejoin = !restart && !this.hasJoined && this.state === 'running' && coordinatorNotReady(error);
      logger.warn({ groupId: config.groupId, err: error, restart: restart || rejoin }, restart || rejoin ? 'Kafka consumer failed, rejoining the group' : 'Kafka consumer failed and stopped');
      if (rejoin) void this.runAgain().catch((err: unknown) => failed(kafkaError(err, 'joining the consumer group', { groupId: config.groupId })));
      if (restart || rejoin) return;
      // Before the first join this fails run(); after it, only the owner can act on it.
      if (!this.hasJoined) failed(kafkaError(error, 'joining the consumer group', { groupId: config.groupId }));
      else if (this.state === 'running') this.handlers?.onFailure?.(kafkaError(error, 'consuming', { groupId: config.groupId }));
    });
    this.consumer.on(this.consumer.events.COMMIT_OFFSETS, (event) => {
      for (const { topic, partitions } of event.payload.topics) {
        for (const p of partitions) for (const waiting of this.unconfirmed) waiting.delete(commitKey(topic, p.partition, p.offset));
      }
    });
    this.untrack = cluster.track(() => this.stop());
  }

  private context(extra: Record<string, string | number> = {}) {
    return { groupId: this.config.groupId, state: this.state, ...extra };
  }

  private stateError(method: string, why: string, extra: Record<string, string | number> = {}): FlowaggError {
    return new FlowaggError(LOG_CONSUMER_STATE, `consumer.${method}() of group ${this.config.groupId}: ${why}`, { context: this.context(extra) });
  }

  private onGroupJoin(memberAssignment: Record<string, number[]>): void {
    const previous = this.assigned;
    const next = Object.entries(memberAssignment).flatMap(([topic, partitions]) => partitions.map((partition) => ({ topic, partition })));
    this.assigned = next;
    const previousKeys = new Set(previous.map((p) => key(p.topic, p.partition)));
    const nextKeys = new Set(next.map((p) => key(p.topic, p.partition)));
    const lost = previous.filter((p) => !nextKeys.has(key(p.topic, p.partition)));
    const gained = next.filter((p) => !previousKeys.has(key(p.topic, p.partition)));
    for (const p of lost) {
      this.positions.delete(key(p.topic, p.partition));
      this.paused.delete(key(p.topic, p.partition));
    }
    for (const p of next) {
      const k = key(p.topic, p.partition);
      if (!previousKeys.has(k)) continue;
      const position = this.positions.get(k);
      if (position !== undefined) this.consumer.seek({ topic: p.topic, partition: p.partition, offset: String(position) });
      if (this.paused.has(k)) this.consumer.pause([{ topic: p.topic, partitions: [p.partition] }]);
    }
    const handlers = this.handlers;
    if (handlers === undefined) return;
    this.assignmentSettled = this.assignmentSettled.then(async () => {
      try {
        if (lost.length > 0) await handlers.onRevoke?.(lost);
        if (gained.length > 0) await handlers.onAssign?.(gained);
      } catch (err) {
        logger.error({ groupId: this.config.groupId, err }, 'onAssign/onRevoke failed');
      }
    });
  }

  async subscribe(topics: readonly string[]): Promise<void> {
    if (this.state !== 'created' && this.state !== 'subscribed') throw this.stateError('subscribe', `the consumer is ${this.state}`);
    this.cluster.checkOpen('consumer.subscribe');
    this.topics = [...new Set([...this.topics, ...topics])];
    this.state = 'subscribed';
  }

  async run(handlers: ConsumerHandlers): Promise<void> {
    if (this.state !== 'subscribed') throw this.stateError('run', this.state === 'created' ? 'subscribe() first' : `the consumer is ${this.state}`);
    this.cluster.checkOpen('consumer.run');
    this.state = 'running';
    this.handlers = handlers;
    const context = { groupId: this.config.groupId, topics: this.topics.join(',') };
    try {
      await kafkaCall('connecting a Kafka consumer', context, () => this.consumer.connect());
      await kafkaCall('subscribing a Kafka consumer', context, () =>
        this.consumer.subscribe({ topics: this.topics, fromBeginning: (this.config.startFrom ?? 'earliest') === 'earliest' }),
      );
      await kafkaCall('joining the consumer group', context, () => this.consumer.run(this.runOptions));
      await this.joined;
      await this.assignmentSettled;
    } catch (err) {
      // A consumer whose run() failed is nobody's to stop, and kafkajs may be restarting it.
      await this.stop();
      throw err;
    }
  }

  private readonly runOptions = {
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: 4,
    eachBatch: (payload: EachBatchPayload) => this.deliver(payload),
  };

  /** kafkajs's consumer, stopped by a crash before the first join, run again after a pause (unless stop() came). */
  private async runAgain(): Promise<void> {
    await sleep(REJOIN_DELAY_MS);
    if (this.state === 'running' && !this.hasJoined) await this.consumer.run(this.runOptions);
  }

  private isPaused(topic: string, partition: number): boolean {
    return this.paused.has(key(topic, partition));
  }

  private async deliver(payload: EachBatchPayload): Promise<void> {
    await this.assignmentSettled;
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    const { topic, partition } = batch;
    const records = batch.messages.map((m) => fromKafkaMessage(topic, partition, m));
    const highWatermark = Number(batch.highWatermark);
    const chunkSize = this.config.maxBatchRecords ?? records.length;
    const interrupted = () => !isRunning() || isStale() || this.state !== 'running' || this.isPaused(topic, partition);
    for (let start = 0; start < records.length; start += chunkSize) {
      const chunk = records.slice(start, start + chunkSize);
      const backoff = new Backoff(RETRY_BACKOFF);
      for (let attempt = 0; ; attempt++) {
        if (interrupted()) return;
        try {
          await this.handlers!.eachBatch({ topic, partition, records: chunk, highWatermark });
          break;
        } catch (err) {
          const delayMs = backoff.next();
          logger.warn({ groupId: this.config.groupId, topic, partition, offset: chunk[0]!.offset, attempt, backoff: delayMs, err: errorMessage(err) }, 'eachBatch failed; delivering the batch again');
          await this.backoff(delayMs, heartbeat, interrupted);
        }
      }
      if (isStale()) return;
      const last = chunk[chunk.length - 1]!.offset;
      resolveOffset(String(last));
      this.positions.set(key(topic, partition), last + 1);
      await heartbeat();
    }
  }

  /** Waits, heartbeating so that the group keeps the partition; a heartbeat's rebalance error goes up to kafkajs. */
  private async backoff(ms: number, heartbeat: () => Promise<void>, interrupted: () => boolean): Promise<void> {
    const end = Date.now() + ms;
    while (Date.now() < end && !interrupted()) {
      await sleep(Math.min(200, end - Date.now()));
      await heartbeat();
    }
  }

  async commit(offsets: readonly TopicPartitionOffset[]): Promise<void> {
    if (this.state !== 'running') throw this.stateError('commit', `the consumer is ${this.state}; offsets are committed only while it runs`);
    if (offsets.length === 0) return;
    const waiting = new Set(offsets.map((o) => commitKey(o.topic, o.partition, o.offset)));
    this.unconfirmed.add(waiting);
    try {
      await kafkaCall('committing consumer offsets', { groupId: this.config.groupId }, () =>
        this.consumer.commitOffsets(offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: String(o.offset) }))),
      );
    } finally {
      this.unconfirmed.delete(waiting);
    }
    if (waiting.size > 0) {
      throw new FlowaggError(LOG_CONSUMER_STATE, `committing consumer offsets of group ${this.config.groupId}: kafkajs did not commit them, its consumer not running (restarting after a failure); to be tried again`, {
        context: this.context({ offsets: [...waiting].join(', ') }),
        retriable: true,
      });
    }
  }

  private checkAssigned(method: string, topic: string, partition: number): void {
    if (this.state !== 'running') throw this.stateError(method, `the consumer is ${this.state}`, { topic, partition });
    if (!this.assigned.some((a) => a.topic === topic && a.partition === partition)) {
      throw this.stateError(method, `${topic}/${partition} is not assigned to this consumer`, { topic, partition });
    }
  }

  seek(target: TopicPartitionOffset): void {
    this.checkAssigned('seek', target.topic, target.partition);
    this.positions.set(key(target.topic, target.partition), target.offset);
    this.consumer.seek({ topic: target.topic, partition: target.partition, offset: String(target.offset) });
  }

  pause(partitions: readonly TopicPartition[]): void {
    for (const p of partitions) this.checkAssigned('pause', p.topic, p.partition);
    for (const p of partitions) this.paused.add(key(p.topic, p.partition));
    this.consumer.pause(byTopic(partitions));
  }

  resume(partitions: readonly TopicPartition[]): void {
    for (const p of partitions) this.checkAssigned('resume', p.topic, p.partition);
    for (const p of partitions) this.paused.delete(key(p.topic, p.partition));
    this.consumer.resume(byTopic(partitions));
  }

  assignment(): TopicPartition[] {
    return this.state === 'running' ? [...this.assigned] : [];
  }

  async stop(): Promise<void> {
    if (this.state === 'stopped' || this.state === 'stopping') return;
    const wasRunning = this.state === 'running';
    this.state = 'stopping';
    // A run() still waiting for its first join (kafkajs retrying it) returns: there is nothing to join now.
    this.endJoinWait();
    this.untrack();
    // disconnect() stops fetching, waits for the batches in flight, and leaves the group.
    await this.consumer.disconnect().catch((err: unknown) => logger.warn({ groupId: this.config.groupId, err }, 'Kafka consumer did not leave cleanly'));
    await this.assignmentSettled;
    const lost = this.assigned;
    this.assigned = [];
    if (wasRunning && lost.length > 0) {
      try {
        await this.handlers?.onRevoke?.(lost);
      } catch (err) {
        logger.error({ groupId: this.config.groupId, err }, 'onRevoke failed');
      }
    }
    this.state = 'stopped';
  }
}
