// The buffers producers encode batches into, reused once the partition log has written them (its
// acknowledgement): a producer of hundreds of thousands of records a second would otherwise allocate a
// fresh megabyte every few milliseconds (lib/buffer-pool.ts says what that costs). Shared by the embedded
// logs of a thread, synchronously.
import { BufferPool } from '../../buffer-pool.js';
import { BATCH_HEADER_SIZE, MAX_BATCH_BYTES } from '../record-batch.js';
import type { AppendMeta, PartitionLog } from './partition-log.js';

const pool = new BufferPool(MAX_BATCH_BYTES + BATCH_HEADER_SIZE, 16, 64 << 10);

export const batchBuffer = (size: number): Buffer => pool.take(size);

/** Appends a batch encoded into batchBuffer, and gives the buffer back once it is acknowledged. */
export function appendPooled(log: PartitionLog, batch: Buffer, meta: AppendMeta): { baseOffset: number; acknowledged: Promise<void> } {
  const appended = log.append(batch, meta);
  return { baseOffset: appended.baseOffset, acknowledged: appended.acknowledged.then(() => pool.give(batch)) };
}
