// The embedded message log: one directory, one process. Opening it takes the directory lock, scans every
// partition (cutting torn tails, rebuilding indexes), loads committed offsets and resolves transactions
// a crash left open; a timer then runs retention and compaction.
import fs from 'node:fs';
import { FlowaggError } from '../../errors.js';
import { componentLogger } from '../../telemetry/logger.js';
import { type EmbeddedLogConfig, type EmbeddedLogConfigInput, embeddedLogConfigSchema } from '../config.js';
import { LOG_CLOSED } from '../errors.js';
import type { Admin, Consumer, ConsumerConfig, MessageLog, Producer, Reader, ReaderConfig, TransactionalProducer } from '../types.js';
import { EmbeddedAdmin } from './admin.js';
import { compactPartition } from './compaction.js';
import { planCompaction } from './compaction-plan.js';
import { CleanerCheckpoints } from './cleaner-checkpoints.js';
import { EmbeddedConsumer } from './consumer.js';
import { GroupCoordinator } from './group-coordinator.js';
import { type DirLock, lockDirectory } from './lock.js';
import { OFFSETS_TOPIC, OffsetsStore } from './offsets-store.js';
import type { PartitionLog } from './partition-log.js';
import { EmbeddedProducer } from './producer.js';
import { EmbeddedReader } from './reader.js';
import { compactionPasses, compactionRemovedRecords, compactionRewrittenSegments, compactionSeconds } from './metrics.js';
import { applyRetention } from './retention.js';
import { type Topic, TopicRegistry } from './topics.js';
import { EmbeddedTransactionalProducer, TXN_STATE_TOPIC, TransactionCoordinator } from './transactions.js';

const logger = componentLogger('log.embedded');
const INTERNAL_SEGMENT_BYTES = 16 * 2 ** 20;

export async function openEmbeddedLog(input: EmbeddedLogConfigInput): Promise<EmbeddedLog> {
  const config = embeddedLogConfigSchema.parse(input);
  fs.mkdirSync(config.dir, { recursive: true });
  const lock = await lockDirectory(config.dir);
  let topics: TopicRegistry | undefined;
  try {
    topics = await TopicRegistry.open(config.dir, {
      segmentBytes: config.segmentBytes,
      indexIntervalBytes: config.indexInterval,
      readChunkBytes: config.readChunk,
      fsync: { policy: config.fsync.policy, intervalMs: config.fsync.interval },
      retentionMs: config.retention.age,
      retentionBytes: config.retention.bytes,
    });
    const internal = { partitions: 1, cleanupPolicy: 'compact', segmentBytes: INTERNAL_SEGMENT_BYTES } as const;
    await topics.create([{ topic: OFFSETS_TOPIC, ...internal }, { topic: TXN_STATE_TOPIC, ...internal }], true);
    const offsets = await OffsetsStore.load(topics.partition(OFFSETS_TOPIC, 0));
    const txns = await TransactionCoordinator.open(topics.partition(TXN_STATE_TOPIC, 0), topics, offsets);
    return new EmbeddedLog(config, lock, topics, offsets, txns);
  } catch (err) {
    await topics?.close().catch(() => {});
    lock.release();
    throw err;
  }
}

export class EmbeddedLog implements MessageLog {
  readonly backend = 'embedded' as const;
  private readonly groups: GroupCoordinator;
  private readonly consumers = new Set<EmbeddedConsumer>();
  private readonly txnProducers = new Set<EmbeddedTransactionalProducer>();
  private readonly readers = new Set<EmbeddedReader>();
  private readonly cleaned: CleanerCheckpoints;
  private readonly timer: NodeJS.Timeout;
  private maintenance: Promise<void> | null = null;
  private closed = false;
  private closing: Promise<void> | null = null;

  constructor(
    readonly config: EmbeddedLogConfig,
    private readonly lock: DirLock,
    private readonly topics: TopicRegistry,
    private readonly offsets: OffsetsStore,
    private readonly txns: TransactionCoordinator,
  ) {
    this.groups = new GroupCoordinator(topics);
    this.cleaned = CleanerCheckpoints.load(config.dir);
    this.timer = setInterval(() => void this.runMaintenance().catch((err: unknown) => logger.error({ err }, 'maintenance failed')), config.maintenanceInterval).unref();
  }

  private checkOpen(what: string): void {
    if (this.closing !== null) throw new FlowaggError(LOG_CLOSED, `${what}: the embedded log ${this.config.dir} is closed`, { context: { dir: this.config.dir } });
  }

  producer(): Producer {
    this.checkOpen('producer()');
    return new EmbeddedProducer(this.topics);
  }

  transactionalProducer(transactionalId: string): TransactionalProducer {
    this.checkOpen('transactionalProducer()');
    const p = new EmbeddedTransactionalProducer(transactionalId, this.txns, () => this.txnProducers.delete(p));
    this.txnProducers.add(p);
    return p;
  }

  consumer(config: ConsumerConfig): Consumer {
    this.checkOpen('consumer()');
    const c = new EmbeddedConsumer(config, { topics: this.topics, groups: this.groups, offsets: this.offsets, onStopped: (x) => this.consumers.delete(x) });
    this.consumers.add(c);
    return c;
  }

  reader(config: ReaderConfig = {}): Reader {
    this.checkOpen('reader()');
    const r = new EmbeddedReader(this.topics, config, (x) => this.readers.delete(x));
    this.readers.add(r);
    return r;
  }

  admin(): Admin {
    this.checkOpen('admin()');
    return new EmbeddedAdmin({ topics: this.topics, groups: this.groups, offsets: this.offsets });
  }

  /** Runs retention and compaction now (the timer does it every maintenanceInterval). `now` is for tests. */
  runMaintenance(now = Date.now()): Promise<void> {
    this.maintenance ??= this.maintain(now).finally(() => (this.maintenance = null));
    return this.maintenance;
  }

  private async maintain(now: number): Promise<void> {
    for (const topic of this.topics.all()) {
      for (const log of topic.partitions) {
        if (this.closed) return;
        if (topic.config.cleanupPolicy === 'compact') await this.compactIfDue(topic, log, now);
        else applyRetention(log, topic.config, now);
      }
    }
  }

  private async compactIfDue(topic: Topic, log: PartitionLog, now: number): Promise<void> {
    const checkpoint = this.cleaned.get(log.topic, log.partition, log.high);
    const plan = planCompaction(log.closedSegments(), log.lastStableOffset, checkpoint, this.config.minCleanableDirtyRatio, now);
    if (plan === null) return;
    const { tombstoneRetention, indexInterval, readChunk, cleanerMapKeys } = this.config;
    const timer = compactionSeconds.startTimer();
    const result = await compactPartition(log, plan, now, { tombstoneRetentionMs: tombstoneRetention, indexIntervalBytes: indexInterval, readChunkBytes: readChunk, mapKeys: cleanerMapKeys });
    timer();
    compactionPasses.inc({ topic: log.topic });
    compactionRemovedRecords.inc({ topic: log.topic }, result.removed);
    compactionRewrittenSegments.inc({ topic: log.topic }, result.rewritten);
    this.cleaned.set(log.topic, log.partition, result);
    if (result.removed > 0) logger.debug({ topic: topic.config.topic, partition: log.partition, removed: result.removed, rewritten: result.rewritten }, 'compacted');
  }

  /** Stops the consumers and readers, aborts open transactions, flushes and releases the directory. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.timer);
      await Promise.all([...this.consumers].map((c) => c.stop()));
      await Promise.all([...this.readers].map((r) => r.close()));
      await Promise.all([...this.txnProducers].map((p) => p.close()));
      this.closed = true;
      await this.maintenance;
      await this.topics.close();
      this.lock.release();
    })();
    return this.closing;
  }
}
