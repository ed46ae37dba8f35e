// Compaction of 'compact' topics: in the closed segments, keep only the latest record of each key, and
// drop tombstones once they are older than the tombstone retention (so readers had time to see the
// delete). Offsets never change: a rewritten batch keeps its base offset and offset range, and readers
// skip the gaps. The active segment is never touched, nor anything at or past the last stable offset.
// Decided transactions are flattened: aborted batches and control markers go, committed batches become
// plain ones, so the recovery scan never mistakes a cleaned transaction for an open one.
// A pass maps the keys of the dirty segments only (compaction-plan.ts): a record is superseded when
// the map holds a later offset of its key, which covers the clean segments and the dirty ones alike.
import fs from 'node:fs';
import type { LogRecord } from '../types.js';
import { type EncodableRecord, NO_PRODUCER, decodeRecords, encodeBatch, setBaseOffset } from '../record-batch.js';
import type { CleanerCheckpoint, CompactionPlan } from './compaction-plan.js';
import { fsyncDir, writeAllAt } from './fs-util.js';
import type { PartitionLog } from './partition-log.js';
import { Segment } from './segment.js';

export interface CompactionResult extends CleanerCheckpoint {
  /** Records removed. */
  readonly removed: number;
  /** Segments rewritten (the others lost nothing). */
  readonly rewritten: number;
}

/** The latest offset of each key in [from, to), read_committed. */
async function latestOffsetPerKey(log: PartitionLog, from: number, to: number): Promise<Map<string, number>> {
  const latest = new Map<string, number>();
  let offset = Math.max(from, log.low);
  while (offset < to) {
    const { records, next } = await log.read(offset, 10_000, 'read_committed');
    for (const r of records) if (r.key !== null && r.offset < to) latest.set(r.key.toString('latin1'), r.offset);
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

export async function compactPartition(log: PartitionLog, plan: CompactionPlan<Segment>, now: number, tombstoneRetentionMs: number, indexIntervalBytes: number, readChunkBytes: number): Promise<CompactionResult> {
  let removed = 0;
  let rewritten = 0;
  let nextTombstoneExpiry = Infinity;
  const latest = await latestOffsetPerKey(log, plan.firstDirty, plan.dirtyEnd);
  for (const seg of plan.segments) {
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
        const superseded = r.key === null || (latest.get(r.key.toString('latin1')) ?? -1) > r.offset;
        const expired = r.value === null && r.timestamp < now - tombstoneRetentionMs;
        if (!superseded && !expired) {
          kept.push({ offsetDelta: r.offset - h.baseOffset, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers });
          if (r.value === null) nextTombstoneExpiry = Math.min(nextTombstoneExpiry, r.timestamp + tombstoneRetentionMs);
        }
      }
      removed += records.length - kept.length;
      if (kept.length !== records.length) changed = true;
      if (kept.length > 0) batches.push({ baseOffset: h.baseOffset, lastOffsetDelta: h.lastOffset - h.baseOffset, records: kept });
      return true;
    });
    if (changed) {
      await rewriteSegment(log, seg, batches, indexIntervalBytes);
      rewritten++;
    }
  }
  return { removed, rewritten, firstDirty: plan.dirtyEnd, nextTombstoneExpiry };
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
