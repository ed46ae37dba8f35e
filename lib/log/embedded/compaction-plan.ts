// Which part of a compacted partition a cleaning pass covers, and whether one is due, as Kafka's
// LogCleaner decides it. After a pass, the segments it covered hold at most one record per key: they are
// clean, and the cleaner remembers where they end (the first dirty offset). The next pass maps the keys
// of the dirty segments only, and is due once they are `minDirtyRatio` of the cleanable bytes (so a
// partition is not read again for every few records added), or when a tombstone it kept may go.
// A pass still reads the clean segments, to drop what the dirty ones superseded, but rewrites only the
// segments that lose something.

/** What the plan needs of a closed segment. */
export interface SegmentExtent {
  readonly baseOffset: number;
  readonly nextOffset: number;
  readonly size: number;
}

/** What the previous pass of a partition left (kept across restarts in cleaner-checkpoints.ts). */
export interface CleanerCheckpoint {
  /** Offsets below it were covered by the previous pass. */
  readonly firstDirty: number;
  /** When the oldest tombstone kept may be removed; Infinity when none. */
  readonly nextTombstoneExpiry: number;
}

export interface CompactionPlan<S extends SegmentExtent> {
  /** The closed segments below the last stable offset, clean ones first. */
  readonly segments: readonly S[];
  /** The first offset whose keys are mapped (records below it are dropped only if superseded above it). */
  readonly firstDirty: number;
}

export function planCompaction<S extends SegmentExtent>(
  closed: readonly S[],
  lastStableOffset: number,
  checkpoint: CleanerCheckpoint | undefined,
  minDirtyRatio: number,
  now: number,
): CompactionPlan<S> | null {
  const segments = closed.filter((s) => s.nextOffset <= lastStableOffset);
  if (segments.length === 0) return null;
  const firstDirty = checkpoint?.firstDirty ?? 0;
  let dirtyBytes = 0;
  let totalBytes = 0;
  for (const s of segments) {
    totalBytes += s.size;
    if (s.baseOffset >= firstDirty) dirtyBytes += s.size;
  }
  const tombstonesDue = checkpoint !== undefined && now >= checkpoint.nextTombstoneExpiry;
  const dirtyEnough = dirtyBytes > 0 && dirtyBytes >= minDirtyRatio * totalBytes;
  if (!dirtyEnough && !tombstonesDue) return null;
  return { segments, firstDirty };
}
