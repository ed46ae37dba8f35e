// A consumer of the embedded log: a group member with one fetch loop per assigned partition. A loop
// reads from its position, hands the batch to eachBatch, and moves past it when that resolves; with
// nothing to read it waits on the partition's change notification (no polling), and seek, pause and
// revoke wake it.
import { setTimeout as sleep } from 'node:timers/promises';
import { FlowaggError } from '../../errors.js';
import { componentLogger } from '../../telemetry/logger.js';
import { LOG_CONSUMER_STATE, LOG_INVALID_ARGUMENT } from '../errors.js';
import type { Consumer, ConsumerConfig, ConsumerHandlers, TopicPartition, TopicPartitionOffset } from '../types.js';
import type { GroupCoordinator, GroupMember } from './group-coordinator.js';
import type { OffsetsStore } from './offsets-store.js';
import type { Isolation, PartitionLog, ReadResult } from './partition-log.js';
import { StateMachine, type Transitions } from '../../service/state-machine.js';
import type { TopicRegistry } from './topics.js';

const logger = componentLogger('log.embedded');
const RETRY_BACKOFF_MS = 200;

type ConsumerState = 'created' | 'subscribed' | 'running' | 'stopping' | 'stopped';
const CONSUMER_TRANSITIONS: Transitions<ConsumerState> = {
  created: ['subscribed', 'stopped'],
  subscribed: ['subscribed', 'running', 'stopped'],
  running: ['stopping'],
  stopping: ['stopped'],
  stopped: [],
};

export interface ConsumerDeps {
  readonly topics: TopicRegistry;
  readonly groups: GroupCoordinator;
  readonly offsets: OffsetsStore;
  readonly onStopped: (consumer: EmbeddedConsumer) => void;
}

const tpKey = (topic: string, partition: number): string => `${partition}\u0000${topic}`;

/** One assigned partition's fetch loop and its position. */
class Fetcher {
  paused = false;
  stopped = false;
  /** Bumped by seek, so a batch in flight does not move the position past a seek made meanwhile. */
  seeks = 0;
  /** The read of the chunk after the batch being handled, started before the handler runs. */
  readAhead: { from: number; result: Promise<ReadResult> } | null = null;
  private wakeUp: (() => void) | null = null;
  done: Promise<void> = Promise.resolve();

  constructor(
    readonly log: PartitionLog,
    public position: number,
  ) {}

  wake(): void {
    this.wakeUp?.();
  }

  /** Resolves on wake(), or when the partition has something new beyond the position. */
  async waitForData(isolation: Isolation): Promise<void> {
    await new Promise<void>((resolve) => {
      const finish = () => {
        unsubscribe();
        this.wakeUp = null;
        resolve();
      };
      const unsubscribe = this.log.onChange(() => {
        if (this.log.limit(isolation) > this.position) finish();
      });
      this.wakeUp = finish;
      if (this.stopped || this.log.limit(isolation) > this.position) finish();
    });
  }

  async waitUntilResumed(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.wakeUp = () => {
        this.wakeUp = null;
        resolve();
      };
      if (this.stopped || !this.paused) this.wakeUp();
    });
  }
}

export class EmbeddedConsumer implements Consumer, GroupMember {
  readonly memberId: string;
  topics: readonly string[] = [];
  private readonly machine: StateMachine<ConsumerState>;
  private readonly fetchers = new Map<string, Fetcher>();
  private handlers: ConsumerHandlers | null = null;
  private readonly isolation: Isolation;
  private readonly maxBatchRecords: number;
  private readonly inPlace: boolean;

  constructor(
    private readonly config: ConsumerConfig,
    private readonly deps: ConsumerDeps,
  ) {
    if (typeof config.groupId !== 'string' || config.groupId === '') throw new FlowaggError(LOG_INVALID_ARGUMENT, 'consumer: groupId is a non-empty string');
    this.memberId = deps.groups.newMemberId(config.groupId);
    this.machine = new StateMachine('Consumer', CONSUMER_TRANSITIONS, 'created', LOG_CONSUMER_STATE, { groupId: config.groupId });
    this.isolation = config.isolation ?? 'read_committed';
    this.maxBatchRecords = config.maxBatchRecords ?? 10_000;
    this.inPlace = config.valuesInPlace ?? false;
  }

  async subscribe(topics: readonly string[]): Promise<void> {
    this.machine.guard('subscribe', ['created', 'subscribed']);
    for (const t of topics) this.deps.topics.get(t);
    this.topics = [...new Set([...this.topics, ...topics])];
    this.machine.to('subscribed');
  }

  async run(handlers: ConsumerHandlers): Promise<void> {
    this.machine.guard('run', ['subscribed']);
    this.machine.to('running');
    this.handlers = handlers;
    await this.deps.groups.join(this.config.groupId, this);
  }

  async commit(offsets: readonly TopicPartitionOffset[]): Promise<void> {
    for (const o of offsets) {
      this.deps.topics.partition(o.topic, o.partition);
      if (!Number.isSafeInteger(o.offset) || o.offset < 0) {
        throw new FlowaggError(LOG_INVALID_ARGUMENT, `commit: offset ${o.offset} of ${o.topic}-${o.partition} is not a non-negative integer`, { context: { ...o } });
      }
    }
    await this.deps.offsets.commit(this.config.groupId, offsets);
  }

  private fetcher(method: string, tp: TopicPartition): Fetcher {
    const f = this.fetchers.get(tpKey(tp.topic, tp.partition));
    if (f === undefined) {
      throw new FlowaggError(LOG_CONSUMER_STATE, `${method}(): ${tp.topic}-${tp.partition} is not assigned to this consumer`, {
        context: { groupId: this.config.groupId, topic: tp.topic, partition: tp.partition },
      });
    }
    return f;
  }

  seek(target: TopicPartitionOffset): void {
    const f = this.fetcher('seek', target);
    if (!Number.isSafeInteger(target.offset) || target.offset < 0) {
      throw new FlowaggError(LOG_INVALID_ARGUMENT, `seek: offset ${target.offset} is not a non-negative integer`, { context: { ...target } });
    }
    f.position = target.offset;
    f.seeks++;
    f.wake();
  }

  pause(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) {
      const f = this.fetcher('pause', tp);
      f.paused = true;
      f.wake();
    }
  }

  resume(partitions: readonly TopicPartition[]): void {
    for (const tp of partitions) {
      const f = this.fetcher('resume', tp);
      f.paused = false;
      f.wake();
    }
  }

  assignment(): TopicPartition[] {
    return this.owned();
  }

  owned(): TopicPartition[] {
    return [...this.fetchers.values()].map((f) => ({ topic: f.log.topic, partition: f.log.partition }));
  }

  async revoke(partitions: readonly TopicPartition[]): Promise<void> {
    if (partitions.length === 0) return;
    const fetchers = partitions.map((tp) => this.fetcher('revoke', tp));
    for (const f of fetchers) {
      f.stopped = true;
      f.wake();
    }
    await Promise.all(fetchers.map((f) => f.done));
    for (const tp of partitions) this.fetchers.delete(tpKey(tp.topic, tp.partition));
    await this.handlers?.onRevoke?.(partitions);
  }

  async assign(partitions: readonly TopicPartition[]): Promise<void> {
    if (partitions.length === 0) return;
    const fresh = partitions.map((tp) => {
      const log = this.deps.topics.partition(tp.topic, tp.partition);
      const committed = this.deps.offsets.committed(this.config.groupId, tp.topic, tp.partition);
      const start = committed ?? ((this.config.startFrom ?? 'earliest') === 'latest' ? log.high : log.low);
      const f = new Fetcher(log, start);
      this.fetchers.set(tpKey(tp.topic, tp.partition), f);
      return f;
    });
    await this.handlers?.onAssign?.(partitions);
    for (const f of fresh) f.done = this.fetchLoop(f);
  }

  private async fetchLoop(f: Fetcher): Promise<void> {
    const handlers = this.handlers!;
    while (!f.stopped) {
      if (f.paused) {
        await f.waitUntilResumed();
        continue;
      }
      if (f.position > f.log.high) f.position = f.log.high;
      const seeks = f.seeks;
      let result: ReadResult;
      try {
        const ahead = f.readAhead;
        f.readAhead = null;
        result = ahead !== null && ahead.from === f.position ? await ahead.result : await f.log.read(f.position, this.maxBatchRecords, this.isolation, this.inPlace);
      } catch (err) {
        logger.error({ err, topic: f.log.topic, partition: f.log.partition }, 'read failed; retrying');
        await sleep(RETRY_BACKOFF_MS);
        continue;
      }
      if (f.stopped || f.paused || f.seeks !== seeks) continue;
      if (result.records.length === 0) {
        if (result.next > f.position) f.position = result.next;
        else await f.waitForData(this.isolation);
        continue;
      }
      // Read the next chunk while the handler works on this one.
      const ahead = f.log.read(result.next, this.maxBatchRecords, this.isolation, this.inPlace);
      ahead.catch(() => {});
      f.readAhead = { from: result.next, result: ahead };
      try {
        await handlers.eachBatch({ topic: f.log.topic, partition: f.log.partition, records: result.records, highWatermark: f.log.lastStableOffset });
        if (f.seeks === seeks) f.position = result.next;
      } catch (err) {
        logger.warn({ err, topic: f.log.topic, partition: f.log.partition, offset: f.position }, 'eachBatch failed; delivering the batch again');
        await sleep(RETRY_BACKOFF_MS);
      }
    }
  }

  async stop(): Promise<void> {
    if (this.machine.is('stopping', 'stopped')) return;
    const wasRunning = this.machine.is('running');
    if (wasRunning) {
      this.machine.to('stopping');
      await this.deps.groups.leave(this.config.groupId, this);
    }
    this.machine.to('stopped');
    this.deps.onStopped(this);
  }
}
