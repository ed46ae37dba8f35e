// Appending to and reading back the log's own internal partitions (committed offsets, transaction
// state): small JSON-or-binary records that are always written durably and folded in order on open.
import type { LogRecord } from '../types.js';
import { NO_PRODUCER, encodeBatch } from '../record-batch.js';
import type { PartitionLog } from './partition-log.js';

export interface KeyedValue {
  readonly key: Buffer;
  readonly value: Buffer | null;
}

/** Appends the entries as one batch and resolves once they are acknowledged. */
export async function appendInternal(log: PartitionLog, entries: readonly KeyedValue[]): Promise<void> {
  if (entries.length === 0) return;
  await log.append(encodeBatch(entries, entries.length - 1, NO_PRODUCER, Date.now()), { producerId: -1, transactional: false, recordsCount: entries.length }).acknowledged;
}

/** Every record of the partition, oldest first. */
export async function readAllInternal(log: PartitionLog, visit: (record: LogRecord) => void): Promise<void> {
  let offset = log.low;
  while (offset < log.high) {
    const { records, next } = await log.read(offset, 10_000, 'read_uncommitted');
    for (const r of records) visit(r);
    if (next <= offset) break;
    offset = next;
  }
}
