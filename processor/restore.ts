// Restoring a partition's aggregation state on assignment (Kafka Streams' way): its changelog partition
// of processor.state read from the start to its end with a group-less reader, every record applied in
// order; then the flows are queued for expiry again. Long restores log their progress.
import type { Reader } from '../lib/log/types.js';
import type { Logger } from '../lib/telemetry/logger.js';
import type { Aggregator } from './aggregate/aggregator.js';
import { StateRestore } from './aggregate/state-restore.js';

const PROGRESS_EVERY_MS = 5000;
const FETCH_RECORDS = 50_000;

export interface RestoreResult {
  readonly records: number;
  readonly flows: number;
  readonly ms: number;
  /** The input offset committed with the state restored (by its last commit); null for an empty changelog. */
  readonly inputOffset: number | null;
  /** The input offset of the state's checkpoint: the input from there to inputOffset is read again. */
  readonly checkpointOffset: number | null;
}

export async function restoreAggregation(reader: Reader, topic: string, partition: number, aggregator: Aggregator, logger: Logger, now: () => number = Date.now): Promise<RestoreResult> {
  const started = now();
  let lastReport = started;
  let records = 0;
  const state = new StateRestore(aggregator);
  let next = 0;
  for (;;) {
    const r = await reader.fetch({ topic, partition }, next, { maxRecords: FETCH_RECORDS });
    for (const record of r.records) state.apply(record.key, record.value);
    records += r.records.length;
    next = r.next;
    if (next >= r.highWatermark) break;
    if (now() - lastReport >= PROGRESS_EVERY_MS) {
      lastReport = now();
      logger.info({ topic, partition, records, flows: aggregator.store.size, at: next, end: r.highWatermark }, 'restoring aggregation state');
    }
  }
  state.finish();
  return { records, flows: aggregator.store.size, ms: now() - started, inputOffset: state.inputOffset, checkpointOffset: state.checkpoint?.inputOffset ?? null };
}
