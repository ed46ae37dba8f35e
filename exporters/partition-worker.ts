// One assigned partition of flows.processed, for one exporter: the records the consumer handed over wait
// here (raw, undecoded) until a batch is cut; the batch's range is recorded, the batch delivered (again
// and again, with backoff, until the destination takes it), then committed. One batch at a time, so the
// committed offset always sits at a batch boundary.
//
// Memory stays bounded without dropping anything: past `2 × maxRecords` waiting records, and while a
// batch is being retried, the partition is paused and the log keeps the rest. Nothing is delivered
// before the exporter started (its destination answered once); until then records wait the same way.
//
// The one way records can be missed is the log's retention removing them before they were read (an
// outage longer than the retention): a read then resumes at the log start. The worker sees that as a
// jump in offsets, asks the log where it starts now, and counts and logs what retention took.
import { errorMessage } from '../lib/errors.js';
import type { LogRecord, TopicPartition } from '../lib/log/types.js';
import { type Logger, sampledLogger } from '../lib/telemetry/logger.js';
import { Backoff, type BackoffPolicy, retry, sleep } from '../lib/retry.js';
import type { PartitionBacklog } from './backlog.js';
import type { BatchIntent, BatchIntents } from './batch-intents.js';
import type { Attempter, DestinationHealth } from './destination-health.js';
import { deliveredNothing } from './errors.js';
import type { FlowValues } from './flow-values.js';
import type { PartitionSeries } from './metrics.js';
import type { ExportBatch, ExportedRecord, Exporter } from './types.js';

export interface PartitionControl {
  pause(tp: TopicPartition): void;
  resume(tp: TopicPartition): void;
  commit(tp: TopicPartition, offset: number): Promise<void>;
}

export interface WorkerDeps {
  readonly exporter: Exporter;
  readonly intents: BatchIntents;
  readonly control: PartitionControl;
  readonly values: FlowValues;
  readonly metrics: PartitionSeries;
  readonly logger: Logger;
  readonly backoff: BackoffPolicy;
  readonly now: () => number;
  readonly health: DestinationHealth;
  /** Resolves true once the exporter started, false if `signal` aborts first. */
  readonly started: (signal: AbortSignal) => Promise<boolean>;
  /** The first offset still in the partition (retention moves it). */
  readonly logStart: () => Promise<number>;
}

/** What the worker is doing, for readiness and logs. */
export type WorkerState =
  | { readonly kind: 'waiting' }
  | { readonly kind: 'delivering'; readonly batch: string }
  | { readonly kind: 'retrying'; readonly batch: string; readonly since: number; readonly delayMs: number; readonly error: string }
  | { readonly kind: 'stopped' };

export class PartitionWorker implements PartitionBacklog {
  readonly #tp: TopicPartition;
  readonly #deps: WorkerDeps;
  readonly #maxRecords: number;
  readonly #maxDelayMs: number;
  #pending: LogRecord[] = [];
  /** Arrival time of #pending[0]. */
  #oldestAt = 0;
  /** Set before the first record arrives: the range recorded by the previous owner, to be re-cut. */
  #recut: BatchIntent | undefined;
  #sawFirst = false;
  /** The offset after the last record handed over (at first the committed one): a read that starts past it skipped something. */
  #expected: number | undefined;
  /** Log timestamp of the first record of the batch in flight. */
  #inFlightSince: number | undefined;
  readonly #who: Attempter;
  #paused = false;
  #state: WorkerState = { kind: 'waiting' };
  #wake: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #stopping = new AbortController();
  /** Aborted when stop() can wait no longer for the batch in flight. */
  readonly #abort = new AbortController();
  readonly #loop: Promise<void>;
  readonly #warn: ReturnType<typeof sampledLogger>;
  /** Offsets of the batch in flight whose values the exporter found are not FlowRecords (counted once each). */
  readonly #unreadable = new Set<number>();

  /** `committed`: the group's committed offset on this partition, null when it never committed. */
  constructor(tp: TopicPartition, deps: WorkerDeps, committed: number | null) {
    this.#tp = tp;
    this.#deps = deps;
    this.#who = `partition ${tp.partition}`;
    if (committed !== null) {
      this.#expected = committed;
      deps.metrics.committed(committed);
    }
    this.#maxRecords = deps.exporter.batching.maxRecords;
    this.#maxDelayMs = deps.exporter.batching.maxDelayMs;
    this.#recut = deps.intents.latest(tp.topic, tp.partition);
    this.#warn = sampledLogger(deps.logger);
    this.#loop = this.#run();
  }

  get tp(): TopicPartition {
    return this.#tp;
  }

  /** Records read and not yet cut into a batch. */
  get waiting(): number {
    return this.#pending.length;
  }

  get state(): WorkerState {
    return this.#state;
  }

  /** Offsets not yet committed, up to the latest log end seen. */
  get lag(): number {
    return this.#deps.metrics.lag();
  }

  /** The log timestamp of the oldest record read and not yet accepted by the destination; undefined when none waits. */
  get oldestUnexported(): number | undefined {
    return this.#inFlightSince ?? this.#pending[0]?.timestamp;
  }

  /** The partition's log end, read from the log while consumption may be paused: for the lag. */
  observeLogEnd(offset: number): void {
    this.#deps.metrics.highWatermark(offset);
  }

  /** Hands over records the consumer read, in offset order. */
  async append(records: readonly LogRecord[], highWatermark: number): Promise<void> {
    if (records.length === 0 || this.#stopping.signal.aborted) return;
    const first = records[0]!.offset;
    const expected = this.#expected;
    this.#expected = records[records.length - 1]!.offset + 1;
    if (expected !== undefined && first > expected) await this.#checkRetention(expected, first);
    if (!this.#sawFirst) {
      this.#sawFirst = true;
      if (expected === undefined) this.#deps.metrics.committed(first);
      // The previous owner's batch is re-cut only if consumption resumes exactly at its start; anywhere
      // else (it was committed, or the offsets were reset for a replay) it is history.
      if (this.#recut !== undefined && first !== this.#recut.firstOffset) this.#recut = undefined;
    }
    if (this.#pending.length === 0) this.#oldestAt = this.#deps.now();
    for (const r of records) this.#pending.push(r);
    this.#deps.metrics.highWatermark(highWatermark);
    this.#syncPause();
    this.#wake?.();
  }

  /**
   * Offsets from..to-1 were not in the read. Transaction markers and aborted transactions leave such
   * gaps too; only what lies below the log's start now was removed by retention.
   */
  async #checkRetention(from: number, to: number): Promise<void> {
    const { topic, partition } = this.#tp;
    let low: number;
    try {
      low = await this.#deps.logStart();
    } catch (err) {
      this.#deps.logger.warn({ topic, partition, firstOffset: from, lastOffset: to - 1, err: errorMessage(err) }, 'offsets skipped by a read, and the log cannot say whether retention removed them (or they were transaction markers)');
      return;
    }
    if (low <= from) return;
    const lastLost = Math.min(low, to) - 1;
    this.#deps.metrics.lostToRetention(lastLost - from + 1);
    this.#deps.logger.error(
      { topic, partition, firstOffset: from, lastOffset: lastLost, offsets: lastLost - from + 1 },
      "records removed by the log's retention before this exporter read them: they never reach the destination (an outage outlasted the retention; docs/exporters.md)",
    );
  }

  /** Finishes the batch in flight (committing it) within timeoutMs, then ends; waiting records are left to the log. */
  async stop(timeoutMs: number): Promise<void> {
    this.#stopping.abort();
    this.#wake?.();
    const timer = setTimeout(() => this.#abort.abort(), timeoutMs);
    try {
      await this.#loop;
    } finally {
      clearTimeout(timer);
      clearTimeout(this.#timer);
      this.#setState({ kind: 'stopped' });
      this.#deps.health.forget(this.#who);
    }
  }

  #syncPause(): void {
    // A batch being re-cut is waited for whatever its size (maxRecords may have shrunk since it was cut).
    const want = this.#state.kind === 'retrying' || (this.#recut === undefined && this.#pending.length >= 2 * this.#maxRecords);
    if (want === this.#paused || this.#stopping.signal.aborted) return;
    this.#paused = want;
    if (want) this.#deps.control.pause(this.#tp);
    else this.#deps.control.resume(this.#tp);
  }

  async #run(): Promise<void> {
    while (!this.#stopping.signal.aborted) {
      const raw = await this.#nextCut();
      if (raw === undefined) return;
      const recut = this.#recut !== undefined;
      this.#recut = undefined;
      const batch = this.#batchOf(raw, recut);
      this.#inFlightSince = raw[0]!.timestamp;
      if (recut) this.#redelivering(batch, 'its range was recorded before a restart or a rebalance');
      else if (!(await this.#persist(() => this.#deps.intents.record(batch), 'record the batch range'))) return;
      if (batch.records.length > 0 && !(await this.#deliver(batch))) return;
      if (!(await this.#persist(() => this.#deps.control.commit(this.#tp, batch.lastOffset + 1), 'commit'))) return;
      this.#inFlightSince = undefined;
      this.#deps.metrics.committed(batch.lastOffset + 1);
    }
  }

  /** The next batch's records, once one is due; undefined when stopping. */
  async #nextCut(): Promise<LogRecord[] | undefined> {
    while (!this.#stopping.signal.aborted) {
      const cut = this.#cut();
      if (cut !== undefined) {
        this.#syncPause();
        return cut;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        if (this.#pending.length > 0 && this.#recut === undefined) {
          this.#timer = setTimeout(resolve, Math.max(0, this.#oldestAt + this.#maxDelayMs - this.#deps.now()));
        }
      });
      clearTimeout(this.#timer);
      this.#wake = undefined;
    }
    return undefined;
  }

  #cut(): LogRecord[] | undefined {
    const pending = this.#pending;
    if (pending.length === 0) return undefined;
    let n: number;
    if (this.#recut !== undefined) {
      const last = this.#recut.lastOffset;
      if (pending[pending.length - 1]!.offset < last) return undefined;
      n = pending.findIndex((r) => r.offset > last);
      if (n < 0) n = pending.length;
    } else if (pending.length >= this.#maxRecords) {
      n = this.#maxRecords;
    } else if (this.#deps.now() - this.#oldestAt >= this.#maxDelayMs) {
      n = pending.length;
    } else {
      return undefined;
    }
    const taken = pending.slice(0, n);
    this.#pending = pending.slice(n);
    this.#oldestAt = this.#deps.now();
    return taken;
  }

  #batchOf(raw: readonly LogRecord[], recut: boolean): ExportBatch {
    const { topic, partition } = this.#tp;
    const firstOffset = raw[0]!.offset;
    const lastOffset = raw[raw.length - 1]!.offset;
    const records: ExportedRecord[] = [];
    for (const r of raw) if (r.value !== null) records.push({ offset: r.offset, value: r.value });
    const unreadable = this.#unreadable;
    unreadable.clear();
    const tell = (record: ExportedRecord, err: unknown) => {
      if (unreadable.has(record.offset)) return;
      unreadable.add(record.offset);
      this.#deps.metrics.undecodable();
      this.#warn(`undecodable/${topic}/${partition}`, { topic, partition, offset: record.offset, err: errorMessage(err) }, 'a record of flows.processed is not a FlowRecord: skipped');
    };
    return { id: `${topic}/${partition}/${firstOffset}-${lastOffset}`, topic, partition, firstOffset, lastOffset, records, values: this.#deps.values, unreadable: tell, ...(recut && { recut }) };
  }

  /** Delivers until the destination takes the batch; false when the stop gave up on it. */
  async #deliver(batch: ExportBatch): Promise<boolean> {
    // Before the exporter started there is nothing to deliver with; a stop meanwhile leaves the batch uncommitted.
    if (!(await this.#deps.started(this.#stopping.signal))) return false;
    // Every failed delivery is retried, retriable or not: records are delayed by an outage, never lost.
    const backoff = new Backoff(this.#deps.backoff);
    let since = 0;
    let mayHaveDelivered = false;
    // Set once: a retry stays in the state 'retrying' (counted once in the gauge) until the destination takes the batch.
    this.#state = { kind: 'delivering', batch: batch.id };
    while (true) {
      if (mayHaveDelivered) this.#redelivering(batch, 'the failed attempt may have reached the destination');
      const started = this.#deps.now();
      try {
        await this.#deps.exporter.deliver(batch, this.#abort.signal);
        this.#deps.metrics.delivered(batch.records.length - this.#unreadable.size, (this.#deps.now() - started) / 1000);
        this.#deps.health.succeeded(this.#who);
        this.#setState({ kind: 'waiting' });
        return true;
      } catch (err) {
        if (this.#abort.signal.aborted) {
          this.#deps.logger.warn({ batch: batch.id, err: errorMessage(err) }, 'stopped before the destination took the batch; it stays uncommitted and is delivered again at the next start');
          return false;
        }
        mayHaveDelivered = !deliveredNothing(err);
        const delayMs = backoff.next();
        since ||= started;
        this.#deps.metrics.failed();
        this.#deps.health.failed(this.#who, err);
        this.#setState({ kind: 'retrying', batch: batch.id, since, delayMs, error: errorMessage(err) });
        // The health logs each change of the destination's state; each try is only worth a debug line.
        this.#deps.logger.debug({ batch: batch.id, records: batch.records.length, retryInMs: delayMs, err: errorMessage(err) }, 'delivery failed; retrying');
        // While stopping, the wait is cut short by the final abort only: the stop timeout bounds retries too.
        if (!(await sleep(delayMs, this.#abort.signal))) return false;
      }
    }
  }

  /** Counted and logged (not sampled): the duplicates a destination without deduplication may hold are these. */
  #redelivering(batch: ExportBatch, why: string): void {
    this.#deps.metrics.redelivered(batch.records.length);
    this.#deps.logger.info({ batch: batch.id, records: batch.records.length, why }, 'delivering a batch again');
  }

  #setState(state: WorkerState): void {
    const was = this.#state.kind === 'retrying';
    this.#state = state;
    this.#deps.metrics.retrying(was, state.kind === 'retrying' ? state.delayMs : undefined);
    this.#syncPause();
  }

  /** Runs a log write until it succeeds (the log may be failing over); false when the stop gave up. */
  async #persist(write: () => Promise<void>, what: string): Promise<boolean> {
    const outcome = await retry(write, {
      policy: this.#deps.backoff,
      signal: this.#abort.signal,
      retriable: () => true,
      onRetry: (err, delayMs) => this.#deps.logger.error({ ...this.#tp, err: errorMessage(err), retryInMs: delayMs }, `could not ${what} in the log; retrying`),
    });
    return outcome.kind === 'done';
  }
}
