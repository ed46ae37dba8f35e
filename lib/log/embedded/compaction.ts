// Compaction of 'compact' topics: in the closed segments, keep only the latest record of each key, and
// drop tombstones once they are older than the tombstone retention (so readers had time to see the
// delete). Offsets never change: a rewritten batch keeps its base offset and offset range, and readers
// skip the gaps. The active segment is never touched, nor anything at or past the last stable offset.
// Decided transactions are flattened: aborted batches and control markers go, committed batches become
// plain ones, so the recovery scan never mistakes a cleaned transaction for an open one.
import fs from 'node:fs';
import type { LogRecord } from '../types.js';
import { type EncodableRecord, NO_PRODUCER, decodeRecords, encodeBatch, setBaseOffset } from '../record-batch.js';
import { fsyncDir, writeAllAt } from './fs-util.js';
import type { PartitionLog } from './partition-log.js';
import { Segment } from './segment.js';

export interface CompactionResult {
  /** Records removed. */
  readonly removed: number;
  /** Offsets below it were considered (the end of the last closed segment cleaned). */
  readonly cleanedThrough: number;
  /** When the oldest tombstone kept becomes removable; Infinity when none. */
  readonly nextTombstoneExpiry: number;
}

async function latestOffsetPerKey(log: PartitionLog): Promise<Map<string, number>> {
  const latest = new Map<string, number>();
  let offset = log.low;
  const end = log.lastStableOffset;
  while (offset < end) {
    const { records, next } = await log.read(offset, 10_000, 'read_committed');
    for (const r of records) if (r.key !== null) latest.set(r.key.toString('latin1'), r.offset);
    if (next <= offset) break;
    offset = next;
  }
  return latest;
}

interface CleanedBatch {
  readonly baseOffset: number;
  readonly lastOffsetDelta: number;
  readonly records: EncodableRecord[];
}

export async function compactPartition(log: PartitionLog, now: number, tombstoneRetentionMs: number, indexIntervalBytes: number, readChunkBytes: number): Promise<CompactionResult> {
  const lso = log.lastStableOffset;
  const segments = log.closedSegments().filter((s) => s.nextOffset <= lso);
  const cleanedThrough = segments.length === 0 ? log.low : segments[segments.length - 1]!.nextOffset;
  let removed = 0;
  let nextTombstoneExpiry = Infinity;
  if (segments.length === 0) return { removed, cleanedThrough, nextTombstoneExpiry };
  const latest = await latestOffsetPerKey(log);
  for (const seg of segments) {
    const batches: CleanedBatch[] = [];
    let changed = false;
    await seg.forEachBatch(0, readChunkBytes, (h, buf, pos) => {
      if (h.control || h.transactional) changed = true;
      if (h.control || (h.transactional && log.isAborted(h.producerId, h.baseOffset))) {
        removed += h.control ? 0 : h.recordsCount;
        return true;
      }
      const records: LogRecord[] = [];
      decodeRecords(buf, pos, log.topic, log.partition, 0, Infinity, records, Infinity);
      const kept: EncodableRecord[] = [];
      for (const r of records) {
        const isLatest = r.key !== null && latest.get(r.key.toString('latin1')) === r.offset;
        const expired = r.value === null && r.timestamp < now - tombstoneRetentionMs;
        if (isLatest && !expired) {
          kept.push({ offsetDelta: r.offset - h.baseOffset, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers });
          if (r.value === null) nextTombstoneExpiry = Math.min(nextTombstoneExpiry, r.timestamp + tombstoneRetentionMs);
        }
      }
      removed += records.length - kept.length;
      if (kept.length !== records.length) changed = true;
      if (kept.length > 0) batches.push({ baseOffset: h.baseOffset, lastOffsetDelta: h.lastOffset - h.baseOffset, records: kept });
      return true;
    });
    if (changed) await rewriteSegment(log, seg, batches, indexIntervalBytes);
  }
  return { removed, cleanedThrough, nextTombstoneExpiry };
}

async function rewriteSegment(log: PartitionLog, seg: Segment, batches: readonly CleanedBatch[], indexIntervalBytes: number): Promise<void> {
  const encoded = batches.map((b) => {
    const buf = encodeBatch(b.records, b.lastOffsetDelta, NO_PRODUCER, 0);
    setBaseOffset(buf, b.baseOffset);
    return buf;
  });
  const tmp = `${seg.path}.cleaned`;
  const fd = fs.openSync(tmp, 'w');
  try {
    await writeAllAt(fd, encoded, 0);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, seg.path);
  fsyncDir(log.dir);
  log.replaceSegment(await Segment.open(log.dir, seg.baseOffset, indexIntervalBytes, false, () => {}));
}
