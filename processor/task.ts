// One assigned input partition: its work (aggregate or proxy), its transactional producer, where it is in
// the input, and its commits. A commit is one log transaction holding the output records, the input
// offset and the state's progress record, all visible together or not at all, so a crash at any moment
// neither loses nor repeats anything. Some commits also take a checkpoint: the changelog records of the
// flows that changed since the previous one. Writing every change at every commit (Kafka Streams' way)
// wrote one changelog record per input record and cost 40 % of the processor's CPU, since a flow is seldom
// updated twice within a commit; a checkpoint every checkpointInterval writes a flow once however often it
// changed. A restore reads the input again from the checkpoint, deterministically (the clock is in the
// log), dropping the outputs already committed (changelog.ts); the first commit of a task, a graceful
// stop and the end of input always take one, and so does a commit once checkpointRecords changes wait.
//
// Commits are pipelined: a commit takes its snapshot synchronously and runs while processing goes on;
// the next commit waits for it, so at most one transaction is open and about two commits' worth of
// records wait in memory. A commit happens every commitRecords input records, every commitInterval
// while there is work, and whenever expiries pile up past the budget. A failed transaction marks the
// task failed: the runtime rebuilds the partition from its changelog and its committed offset.
import type { LogRecord, ProduceRecord, Transaction, TransactionalProducer } from '../lib/log/types.js';
import type { Logger } from '../lib/telemetry/logger.js';
import { ChangelogRecords } from './aggregate/changelog-records.js';
import { processorMetrics } from './metrics.js';
import type { PartitionWork } from './work.js';

export interface TaskSettings {
  readonly groupId: string;
  readonly inputTopic: string;
  readonly outputTopic: string;
  readonly changelogTopic: string;
  readonly commitRecords: number;
  readonly commitIntervalMs: number;
  /** A commit takes a checkpoint when the last one is this old (0: every commit)... */
  readonly checkpointIntervalMs: number;
  /** ...or this many changelog records wait for one. */
  readonly checkpointRecords: number;
  readonly now: () => number;
  /** Told the number of output records of each committed transaction. */
  readonly onCommitted?: (outputs: number) => void;
}

/** Changelog records sent in one call: a slice small enough to die in the young generation. */
export const CHANGELOG_SLICE = 10_000;

interface Snapshot {
  readonly outputs: ProduceRecord[];
  readonly changelog: ChangelogRecords;
  readonly checkpoint: boolean;
  readonly offset: number;
}

export class PartitionTask {
  /** The next input offset to apply; records below it were applied already (a batch delivered again). */
  position: number;
  /** Why the last transaction failed; the runtime then rebuilds the task. */
  failure: unknown = undefined;
  private uncommitted = 0;
  private committedPosition: number;
  private lastCommitAt: number;
  private lastCheckpointAt = -Infinity;
  private busy = false;
  private ticking = false;
  private closed = false;
  /** close() began: a failed commit from now on is the closer's to tell (close rejects with it). */
  private closing = false;
  private txn: Transaction | undefined;
  /** Serialises commit calls: each waits for the previous one to have started its transaction. */
  private lock: Promise<void> = Promise.resolve();
  /** The transaction in flight. */
  private inflight: Promise<void> = Promise.resolve();

  constructor(
    readonly partition: number,
    readonly work: PartitionWork,
    private readonly producer: TransactionalProducer,
    firstTransaction: Transaction,
    /** Where the input is read from: the committed offset, or the checkpoint's when the state was restored from one behind it. */
    position: number,
    committedPosition: number,
    private readonly settings: TaskSettings,
    private readonly logger: Logger,
  ) {
    this.txn = firstTransaction;
    this.position = position;
    this.committedPosition = committedPosition;
    this.lastCommitAt = settings.now();
  }

  /** The input offset committed last (the next one to read after a restart). */
  get committedOffset(): number {
    return this.committedPosition;
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Applies a batch of input records, committing as it goes. Throws when the task failed. */
  async processBatch(records: readonly LogRecord[]): Promise<void> {
    this.throwIfFailed();
    this.busy = true;
    try {
      for (const record of records) {
        if (record.offset < this.position) continue;
        while (!this.work.accept(record)) await this.commitOrThrow();
        this.position = record.offset + 1;
        if (++this.uncommitted >= this.settings.commitRecords || this.work.changed >= this.settings.checkpointRecords) await this.commitOrThrow();
      }
    } finally {
      this.busy = false;
    }
  }

  /** The runtime's timer: commits what waits for longer than commitInterval. */
  async tick(): Promise<void> {
    if (this.closed || this.failed || this.busy || this.ticking) return;
    this.ticking = true;
    try {
      const checkpointDue = this.work.changed > 0 && this.checkpointDue();
      if ((this.uncommitted > 0 || this.work.pending > 0 || checkpointDue) && this.settings.now() - this.lastCommitAt >= this.settings.commitIntervalMs) await this.commit();
    } finally {
      this.ticking = false;
    }
  }

  private async commitOrThrow(): Promise<void> {
    await this.commit();
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Starts a commit of everything applied so far (after the one in flight); resolves once it started. */
  commit(checkpoint = false): Promise<void> {
    this.lock = this.lock.then(() => this.startCommit(checkpoint));
    return this.lock;
  }

  private checkpointDue(): boolean {
    return this.settings.now() - this.lastCheckpointAt >= this.settings.checkpointIntervalMs || this.work.changed >= this.settings.checkpointRecords;
  }

  /** End of input (`flowagg pipeline`): every flow exported, committed, and durable. */
  async finish(): Promise<void> {
    while (!this.work.flush()) await this.commitOrThrow();
    await this.flush();
    this.throwIfFailed();
  }

  /** Commits everything, with a checkpoint, and waits for it to be durable. */
  async flush(): Promise<void> {
    await this.commit(true);
    await this.inflight;
  }

  private async startCommit(checkpointAsked: boolean): Promise<void> {
    await this.inflight;
    if (this.failed || this.closed) return;
    const outputs = this.work.takeOutputs();
    const changelog = new ChangelogRecords(this.partition);
    const checkpoint = checkpointAsked || this.checkpointDue();
    const nothingNew = outputs.length === 0 && this.position === this.committedPosition && !(checkpoint && this.work.changed > 0);
    this.lastCommitAt = this.settings.now();
    if (nothingNew) return;
    if (checkpoint) {
      this.work.takeCheckpoint(changelog, this.position);
      this.lastCheckpointAt = this.lastCommitAt;
    } else this.work.takeProgress(changelog, this.position);
    this.uncommitted = 0;
    this.inflight = this.transact({ outputs, changelog, checkpoint, offset: this.position });
  }

  private async transact(s: Snapshot): Promise<void> {
    const { settings } = this;
    const timer = processorMetrics.commitSeconds.startTimer();
    try {
      const txn = this.txn ?? (await this.producer.begin());
      this.txn = txn;
      if (s.outputs.length > 0) await txn.send(settings.outputTopic, s.outputs);
      // A slice at a time: its records are made as it is sent, and are garbage once the log has them.
      for (const slice of s.changelog.slices(CHANGELOG_SLICE)) await txn.send(settings.changelogTopic, slice);
      await txn.sendOffsets(settings.groupId, [{ topic: settings.inputTopic, partition: this.partition, offset: s.offset }]);
      await txn.commit();
      this.txn = undefined;
      this.committedPosition = s.offset;
      timer();
      processorMetrics.commits.inc();
      processorMetrics.outputs.labels(this.work.mode).inc(s.outputs.length);
      processorMetrics.changelog.inc(s.changelog.length);
      if (s.checkpoint) processorMetrics.checkpoints.inc();
      settings.onCommitted?.(s.outputs.length);
    } catch (err) {
      const txn = this.txn;
      this.txn = undefined;
      await txn?.abort().catch((abortErr: unknown) => this.logger.warn({ partition: this.partition, err: abortErr }, 'aborting the failed transaction failed too'));
      processorMetrics.commitFailures.labels((err as { code?: string }).code ?? 'unknown').inc();
      this.failure ??= err;
      // A task closed meanwhile is not rebuilt: whoever owns the partition next processes these records again.
      if (this.closed) this.logger.warn({ partition: this.partition, err }, 'a commit in flight when the task closed failed; its records are processed again by the next owner of the partition');
      else if (!this.closing) this.logger.error({ partition: this.partition, err }, 'commit failed; the partition is restored from its changelog and committed offset');
    }
  }

  /**
   * Stops the task: `commitFirst` commits what was applied (a graceful stop), else it is abandoned. Rejects
   * with the failure when that final commit failed, once the producer is closed all the same.
   */
  async close(commitFirst: boolean): Promise<void> {
    const finalCommit = commitFirst && !this.failed && !this.closed;
    this.closing = true;
    if (finalCommit) await this.flush();
    this.closed = true;
    await this.lock;
    await this.inflight;
    const txn = this.txn;
    this.txn = undefined;
    await txn?.abort().catch((err: unknown) => this.logger.warn({ partition: this.partition, err }, 'aborting the open transaction of a closed task failed'));
    await this.producer.close().catch((err: unknown) => this.logger.warn({ partition: this.partition, err }, 'closing the transactional producer failed'));
    if (finalCommit) this.throwIfFailed();
  }
}
