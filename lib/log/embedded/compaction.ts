// Compaction of 'compact' topics: in the closed segments, keep only the latest record of each key, and
// drop tombstones once they are older than the tombstone retention (so readers had time to see the
// delete). Offsets never change: a rewritten batch keeps its base offset and offset range, and readers
// skip the gaps. The active segment is never touched, nor anything at or past the last stable offset.
// Decided transactions are flattened: aborted batches and control markers go, committed batches become
// plain ones, so the recovery scan never mistakes a cleaned transaction for an open one.
// A pass maps the keys of the dirty segments only (compaction-plan.ts): a record is superseded when
// the map holds a later offset of its key, which covers the clean segments and the dirty ones alike.
import fs from 'node:fs';
import type { BatchRecord } from '../batch-record.js';
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

/** What a segment held besides the records that stand. */
interface Dropped {
  /** Any transactional batch or marker: the segment is to be flattened. */
  readonly transactional: boolean;
  /** Records of aborted transactions. */
  readonly aborted: number;
}

/** The records of a segment's batches that stand: aborted transactions and markers left out. */
async function forEachStandingBatch(log: PartitionLog, seg: Segment, readChunkBytes: number, visit: (baseOffset: number, lastOffset: number, records: BatchRecord[]) => void): Promise<Dropped> {
  let transactional = false;
  let aborted = 0;
  await seg.forEachBatch(0, readChunkBytes, (h, buf, pos) => {
    transactional ||= h.control || h.transactional;
    if (h.control) return true;
    if (h.transactional && log.isAborted(h.producerId, h.baseOffset)) {
      aborted += h.recordsCount;
      return true;
    }
    // In place: a record's key and value are read where they lie, and become Buffers only if kept.
    const records: BatchRecord[] = [];
    decodeRecords(buf, pos, log.topic, log.partition, 0, Infinity, records, Infinity, true);
    visit(h.baseOffset, h.lastOffset, records);
    return true;
  });
  return { transactional, aborted };
}

const keyOf = (r: BatchRecord): string | null => (r.keyLength < 0 ? null : r.bytes.toString('latin1', r.keyStart, r.keyStart + r.keyLength));

export interface CompactionSettings {
  readonly tombstoneRetentionMs: number;
  readonly indexIntervalBytes: number;
  readonly readChunkBytes: number;
  /** The keys a pass maps at most (checked between segments, so at least one segment is mapped). */
  readonly mapKeys: number;
}

interface DirtyKeys {
  /** The latest offset of each key mapped. */
  readonly latest: Map<string, number>;
  /** Where the mapped segments end: the pass covers the segments below it, the rest stay dirty. */
  readonly end: number;
}

/** Maps the dirty segments' keys in order, as many segments as fit in `mapKeys` (Kafka bounds its map the same way). */
async function mapDirtyKeys(log: PartitionLog, plan: CompactionPlan<Segment>, settings: CompactionSettings): Promise<DirtyKeys> {
  const latest = new Map<string, number>();
  let end = plan.firstDirty;
  for (const seg of plan.segments) {
    if (seg.baseOffset < plan.firstDirty) continue;
    if (latest.size >= settings.mapKeys) break;
    await forEachStandingBatch(log, seg, settings.readChunkBytes, (_base, _last, records) => {
      for (const r of records) {
        const key = keyOf(r);
        if (key !== null) latest.set(key, r.offset);
      }
    });
    end = seg.nextOffset;
  }
  return { latest, end };
}

interface CleanedBatch {
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly records: BatchRecord[];
}

export async function compactPartition(log: PartitionLog, plan: CompactionPlan<Segment>, now: number, settings: CompactionSettings): Promise<CompactionResult> {
  const { tombstoneRetentionMs, indexIntervalBytes, readChunkBytes } = settings;
  let removed = 0;
  let rewritten = 0;
  let nextTombstoneExpiry = Infinity;
  const { latest, end } = await mapDirtyKeys(log, plan, settings);
  for (const seg of plan.segments) {
    if (seg.nextOffset > end) break;
    const batches: CleanedBatch[] = [];
    let before = 0;
    let after = 0;
    const { transactional, aborted } = await forEachStandingBatch(log, seg, readChunkBytes, (baseOffset, lastOffset, records) => {
      const kept: BatchRecord[] = [];
      for (const r of records) {
        const key = keyOf(r);
        const superseded = key === null || (latest.get(key) ?? -1) > r.offset;
        const expired = r.valueLength < 0 && r.timestamp < now - tombstoneRetentionMs;
        if (superseded || expired) continue;
        kept.push(r);
        if (r.valueLength < 0) nextTombstoneExpiry = Math.min(nextTombstoneExpiry, r.timestamp + tombstoneRetentionMs);
      }
      before += records.length;
      after += kept.length;
      if (kept.length > 0) batches.push({ baseOffset, lastOffset, records: kept });
    });
    removed += aborted + before - after;
    if (transactional || after < before) {
      await rewriteSegment(log, seg, batches, indexIntervalBytes);
      rewritten++;
    }
  }
  return { removed, rewritten, firstDirty: end, nextTombstoneExpiry };
}

async function rewriteSegment(log: PartitionLog, seg: Segment, batches: readonly CleanedBatch[], indexIntervalBytes: number): Promise<void> {
  const encoded = batches.map((b) => {
    const records = b.records.map((r): EncodableRecord => ({ offsetDelta: r.offset - b.baseOffset, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers }));
    const buf = encodeBatch(records, b.lastOffset - b.baseOffset, NO_PRODUCER, 0);
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
