// Retention of 'delete' topics: whole closed segments go, oldest first, while the partition is over its
// size limit or the segment's newest record is older than the age limit (Kafka's rules). A segment
// holding part of a transaction still open is kept, and the active segment is never deleted.
import type { PartitionLog } from './partition-log.js';

export interface RetentionLimits {
  /** null: no limit. */
  readonly retentionMs: number | null;
  readonly retentionBytes: number | null;
}

/** Deletes the segments past retention; returns how many. */
export function applyRetention(log: PartitionLog, limits: RetentionLimits, now: number): number {
  const lso = log.lastStableOffset;
  let total = log.sizeBytes;
  let count = 0;
  for (const seg of log.closedSegments()) {
    if (seg.nextOffset > lso) break;
    const tooOld = limits.retentionMs !== null && seg.maxTimestamp < now - limits.retentionMs;
    const tooBig = limits.retentionBytes !== null && total - seg.size >= limits.retentionBytes;
    if (!tooOld && !tooBig) break;
    total -= seg.size;
    count++;
  }
  log.deleteOldest(count);
  return count;
}
