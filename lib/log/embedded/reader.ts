// A reader of the embedded log: fetches straight from a partition's segments, with no group membership
// and no committed offsets. A fetch that finds nothing waits on the partition's change notification
// (no polling), up to its bound.
import { checkFetch } from '../fetch-options.js';
import type { FetchOptions, FetchResult, Offset, Reader, ReaderConfig, TopicPartition } from '../types.js';
import type { Isolation, PartitionLog } from './partition-log.js';
import type { TopicRegistry } from './topics.js';


export class EmbeddedReader implements Reader {
  private readonly isolation: Isolation;
  private closed = false;
  /** Wakes every fetch waiting for records (close). */
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly topics: TopicRegistry,
    config: ReaderConfig,
    private readonly onClosed: (r: EmbeddedReader) => void,
  ) {
    this.isolation = config.isolation ?? 'read_committed';
  }

  async fetch(tp: TopicPartition, offset: Offset, opts: FetchOptions = {}): Promise<FetchResult> {
    const maxRecords = checkFetch(this.closed, tp, offset, opts);
    const log = this.topics.partition(tp.topic, tp.partition);
    const from = Math.min(offset, log.high);
    let result = await log.read(from, maxRecords, this.isolation);
    const waitMs = opts.maxWaitMs ?? 0;
    if (result.records.length === 0 && waitMs > 0 && !this.closed) {
      await this.waitForData(log, result.next, waitMs);
      result = await log.read(result.next, maxRecords, this.isolation);
    }
    return { records: result.records, next: result.next, highWatermark: log.limit(this.isolation) };
  }

  private waitForData(log: PartitionLog, position: number, waitMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        unsubscribe();
        this.waiters.delete(finish);
        resolve();
      };
      const timer = setTimeout(finish, waitMs);
      const unsubscribe = log.onChange(() => {
        if (log.limit(this.isolation) > position) finish();
      });
      this.waiters.add(finish);
      if (log.limit(this.isolation) > position) finish();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const wake of [...this.waiters]) wake();
    this.onClosed(this);
  }
}
