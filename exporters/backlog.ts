// How far an exporter is behind flows.processed, kept up to date while its destination is down: consumption
// of a retrying partition is paused, so the log end the consumer last saw goes stale; every few seconds
// the log itself is asked (the lag per partition), and the oldest record read and not yet accepted gives
// flowagg_export_oldest_unexported_age_seconds. The same figures go into the readiness detail.
import { errorMessage } from '../lib/errors.js';
import type { MessageLog, TopicPartition } from '../lib/log/types.js';
import type { Logger } from '../lib/telemetry/logger.js';
import { exportMetrics } from './metrics.js';

/** One assigned partition, as the backlog sees it (a PartitionWorker). */
export interface PartitionBacklog {
  readonly tp: TopicPartition;
  /** Offsets not yet committed, as far as the worker knows the log end. */
  readonly lag: number;
  /** Log timestamp of the oldest record read and not yet accepted. */
  readonly oldestUnexported: number | undefined;
  observeLogEnd(offset: number): void;
}

export class Backlog {
  readonly #age: ReturnType<typeof exportMetrics.oldestAge.labels>;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: MessageLog,
    private readonly topic: string,
    kind: string,
    private readonly partitions: () => readonly PartitionBacklog[],
    private readonly now: () => number,
  ) {
    this.#age = exportMetrics.oldestAge.labels(kind);
  }

  start(intervalMs: number, logger: Logger): void {
    this.#timer = setInterval(() => void this.#probe().catch((err: unknown) => logger.debug({ err: errorMessage(err) }, 'cannot read the log end for the lag')), intervalMs).unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** For the readiness detail: `1200 offsets of flows.processed waiting, the oldest record read 75 s ago`. */
  describe(): string {
    const all = this.partitions();
    const lag = all.reduce((n, p) => n + p.lag, 0);
    const oldest = this.#oldest(all);
    return `${lag} offsets of ${this.topic} waiting${oldest === undefined ? '' : `, the oldest record read ${Math.round((this.now() - oldest) / 1000)} s ago`}`;
  }

  #oldest(all: readonly PartitionBacklog[]): number | undefined {
    const times = all.flatMap((p) => (p.oldestUnexported === undefined ? [] : [p.oldestUnexported]));
    return times.length === 0 ? undefined : Math.min(...times);
  }

  async #probe(): Promise<void> {
    const all = this.partitions();
    const oldest = this.#oldest(all);
    this.#age.set(oldest === undefined ? 0 : Math.max(0, (this.now() - oldest) / 1000));
    const ends = await this.log.admin().fetchTopicOffsets(this.topic);
    for (const p of all) {
      const end = ends.find((e) => e.partition === p.tp.partition);
      if (end !== undefined) p.observeLogEnd(end.high);
    }
  }
}
