// The tasks of the input partitions assigned to this instance, kept equal to the assignment. A task is
// opened by an assignment, by a failed commit (rebuilt), by a batch that finds none; it is closed by a
// revocation, a failure, the stop, or the periodic check finding its partition no longer assigned. Opening
// takes seconds (fence, restore), and the group can move the partition meanwhile: so the operations on one
// partition run one at a time, and an open that ends with the partition no longer assigned closes what it
// opened. A task left for a partition that is not ours would hold its flows forever (nothing feeds its
// clock) and count them in the instance's flows.
import { isFlowaggError } from '../lib/errors.js';
import { LOG_PRODUCER_FENCED } from '../lib/log/errors.js';
import { Backoff, type BackoffPolicy, sleep } from '../lib/retry.js';
import type { Logger } from '../lib/telemetry/logger.js';
import type { PartitionTask } from './task.js';

const REOPEN_BACKOFF: BackoffPolicy = { initialMs: 100, maxMs: 30_000 };

export interface PartitionTasksDeps {
  /** Fences, restores and positions a task for an assigned partition (processor/index.ts). */
  open(partition: number): Promise<PartitionTask>;
  /** The consumer's assignment now. */
  assigned(): readonly number[];
  /** A task closed: what its work counted goes to the totals. */
  closed(task: PartitionTask): void;
  readonly logger: Logger;
}

export class PartitionTasks {
  readonly #tasks = new Map<number, PartitionTask>();
  /** Per partition, the end of its last open or close: the next one waits for it. */
  readonly #queues = new Map<number, Promise<void>>();
  /** Per partition, its open retrying in the background. */
  readonly #retries = new Map<number, Promise<void>>();
  #stopping = new AbortController();
  /** Partitions whose final commit failed since the last reset(). */
  readonly unfinished = new Set<number>();

  constructor(private readonly deps: PartitionTasksDeps) {}

  get size(): number {
    return this.#tasks.size;
  }

  get(partition: number): PartitionTask | undefined {
    return this.#tasks.get(partition);
  }

  values(): IterableIterator<PartitionTask> {
    return this.#tasks.values();
  }

  partitions(): number[] {
    return [...this.#tasks.keys()];
  }

  /** A new start: opens and retries allowed again. */
  reset(): void {
    this.#stopping = new AbortController();
    this.unfinished.clear();
  }

  /** A partition gained: one attempt now (a task left from before is dropped first), then retries in the background. */
  async assign(partition: number): Promise<void> {
    await this.#serial(partition, async () => {
      const left = this.#tasks.get(partition);
      if (left !== undefined) await this.#drop(left);
      await this.#attempt(partition, 'assigned');
    });
    if (!this.#tasks.has(partition)) this.reopen(partition, 'backoff');
  }

  /** A partition lost: its task commits what it applied and closes. */
  revoke(partition: number): Promise<void> {
    return this.#serial(partition, async () => {
      const task = this.#tasks.get(partition);
      if (task !== undefined) await this.#close(task);
    });
  }

  /**
   * Opens the partition's task in the background unless one exists or is on its way, after `firstDelayMs`
   * and then with a backoff while the log fails; ends when the partition is no longer assigned.
   */
  reopen(partition: number, firstDelayMs: number | 'backoff'): void {
    if (this.#retries.has(partition)) return;
    const retry = this.#retry(partition, firstDelayMs)
      .catch((err: unknown) => this.deps.logger.error({ partition, err }, 'opening the partition failed'))
      .finally(() => this.#retries.delete(partition));
    this.#retries.set(partition, retry);
  }

  /** A task whose commit failed: opened again from its changelog and committed offset, unless another instance fenced it. */
  async rebuild(task: PartitionTask): Promise<void> {
    let fenced = false;
    await this.#serial(task.partition, async () => {
      if (this.#tasks.get(task.partition) !== task) return;
      await this.#drop(task);
      fenced = isFlowaggError(task.failure, LOG_PRODUCER_FENCED);
    });
    if (fenced) {
      this.deps.logger.warn({ partition: task.partition }, 'another instance took this partition over (our producer was fenced); leaving it to the rebalance (opened again if the partition stays ours)');
      return;
    }
    this.reopen(task.partition, 'backoff');
  }

  /** The periodic check: a task whose partition is no longer assigned here closes as a revoked one does. */
  reconcile(): void {
    const assigned = new Set(this.deps.assigned());
    for (const task of this.#tasks.values()) {
      // A partition with an operation waiting is being closed or rebuilt already.
      if (assigned.has(task.partition) || this.#queues.has(task.partition)) continue;
      this.deps.logger.warn({ partition: task.partition, assigned: [...assigned] }, 'a task was open for a partition no longer assigned here; closing it');
      void this.revoke(task.partition).catch((err: unknown) => this.deps.logger.error({ partition: task.partition, err }, 'closing the task failed'));
    }
  }

  /** The stop began: the retries end, and an open still running closes what it opens. */
  async abort(): Promise<void> {
    this.#stopping.abort();
    await Promise.all(this.#retries.values());
  }

  /** Closes every task left (the consumer's stop revokes what it can), committing what it applied. */
  async closeAll(): Promise<void> {
    await Promise.all(this.partitions().map((p) => this.revoke(p)));
  }

  #serial(partition: number, op: () => Promise<void>): Promise<void> {
    const next = (this.#queues.get(partition) ?? Promise.resolve()).then(op);
    const settled = next.catch(() => undefined);
    this.#queues.set(partition, settled);
    void settled.then(() => {
      if (this.#queues.get(partition) === settled) this.#queues.delete(partition);
    });
    return next;
  }

  async #retry(partition: number, firstDelayMs: number | 'backoff'): Promise<void> {
    const backoff = new Backoff(REOPEN_BACKOFF);
    for (let attempt = 1; ; attempt++) {
      if (!(await sleep(attempt === 1 && firstDelayMs !== 'backoff' ? firstDelayMs : backoff.next(), this.#stopping.signal))) return;
      let done = false;
      await this.#serial(partition, async () => {
        done = this.#tasks.has(partition) || !this.deps.assigned().includes(partition) || (await this.#attempt(partition, attempt));
      });
      if (done) return;
    }
  }

  /** One open (at the assignment, or the attempt-th again); true when the task is set, or closed again because the partition moved or the stop began. */
  async #attempt(partition: number, attempt: number | 'assigned'): Promise<boolean> {
    let task: PartitionTask;
    try {
      task = await this.deps.open(partition);
    } catch (err) {
      if (this.#gone(partition)) return true;
      this.deps.logger.error({ partition, attempt, err }, 'could not open the partition (restore or offsets failed); retrying');
      return false;
    }
    if (this.#gone(partition)) {
      await this.#drop(task);
      return true;
    }
    this.#tasks.set(partition, task);
    if (attempt !== 'assigned') this.deps.logger.info({ partition, attempt }, 'partition opened again');
    return true;
  }

  /** Whether the partition was revoked, or the stop began, while its task opened: then it is not ours to open. */
  #gone(partition: number): boolean {
    if (!this.#stopping.signal.aborted && this.deps.assigned().includes(partition)) return false;
    this.deps.logger.info({ partition }, 'the partition was revoked (or the processor stopped) while its task opened; not opening it');
    return true;
  }

  /** Closes a task without committing: its records since the last commit go to whoever opens the partition next. */
  async #drop(task: PartitionTask): Promise<void> {
    this.#tasks.delete(task.partition);
    await task.close(false);
    this.deps.closed(task);
  }

  /** Closes a task, committing first; a failed final commit loses nothing but is told and kept for the stop. */
  async #close(task: PartitionTask): Promise<void> {
    this.#tasks.delete(task.partition);
    await task.close(true).catch((err: unknown) => {
      this.unfinished.add(task.partition);
      this.deps.logger.error({ partition: task.partition, err }, 'the final commit of a partition failed; its records since the last commit are processed again by its next owner');
    });
    this.deps.closed(task);
  }
}
