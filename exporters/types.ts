// The one interface every exporter implements (exporters/<kind>/), the way Antrea's
// pkg/flowaggregator/exporter puts each destination behind one interface. The runner (exporters/runner.ts)
// owns everything the destinations share: the consumer group on flows.processed, cutting batches,
// counting the records that do not read, retries with backoff, and committing offsets only once the
// destination accepted a batch.
import type { FlowValues } from './flow-values.js';

export type ExporterKind = 'ipfix' | 'clickhouse' | 's3' | 'flowlog';

export interface ExportedRecord {
  readonly offset: number;
  /** The framed FlowRecord as it is in the log: the batch's `values` read it. */
  readonly value: Buffer;
}

/**
 * Consecutive records of one partition of flows.processed. A batch is cut from offsets, not from time,
 * so that a batch delivered again after a failure or a restart is the same batch with the same id.
 */
export interface ExportBatch {
  /** `<topic>/<partition>/<firstOffset>-<lastOffset>`: a deduplication token, a file name part. */
  readonly id: string;
  readonly topic: string;
  readonly partition: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly records: readonly ExportedRecord[];
  /** Reads the records' values, scanned in place or decoded: through scanEach or decodeEach (flow-values.ts). */
  readonly values: FlowValues;
  /**
   * Told of a record whose value is not a FlowRecord, which the exporter then skips: the runner counts and
   * logs it once, however often the batch is delivered.
   */
  readonly unreadable: (record: ExportedRecord, err: unknown) => void;
  /**
   * Its range was recorded before a restart or a rebalance: it may be in the destination already, even when
   * this exporter delivered to its partition since it started (a rejoin after the commit failed re-cuts it).
   */
  readonly recut?: boolean;
}

export interface BatchPolicy {
  /** A batch is cut at this many records. */
  readonly maxRecords: number;
  /** ... or once its first record waited this long. */
  readonly maxDelayMs: number;
}

/**
 * A destination. The runner calls start() until it resolves, then deliver() for one batch at a time per
 * partition (batches of different partitions may be in flight together), then stop() after the last
 * delivery settled (also when no start succeeded). The exporter flushes nothing on its own: a delivery
 * is done when deliver() resolves.
 *
 * What the configuration alone shows cannot work is refused before: by the section's schema, which
 * `flowagg config check` runs too, and again when the exporter is created. Everything else (a
 * destination that does not answer, refuses the credentials, lacks the bucket or a column, a
 * certificate file not there yet) is a start that fails and is tried again.
 */
export interface Exporter {
  readonly kind: ExporterKind;
  readonly batching: BatchPolicy;
  /**
   * Connects to and checks the destination; throws a FlowaggError naming the key at fault, and may be
   * called again after that (it leaves nothing open behind a failure). `signal` aborts when the runner stops.
   */
  start(signal?: AbortSignal): Promise<void>;
  /**
   * Resolves once the destination has accepted every record of the batch: the runner then commits past
   * it. Rejects to have the same batch delivered again after a backoff; a rejection that reached none of
   * the records says so (exporters/errors.ts notDelivered), any other counts the retry as a possible
   * duplicate. `signal` aborts when the runner stops and can wait no longer (the batch stays uncommitted).
   */
  deliver(batch: ExportBatch, signal: AbortSignal): Promise<void>;
  stop(): Promise<void>;
}
