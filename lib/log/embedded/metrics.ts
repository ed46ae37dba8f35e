// Metrics of the embedded log (flowagg_log_embedded_*), per topic.
import { componentMetrics } from '../../telemetry/metrics.js';

const m = componentMetrics('log_embedded');

export const appendedRecords = m.counter('appended_records_total', 'Records acknowledged by appends (group commits).', ['topic']);
export const groupCommits = m.counter('group_commits_total', 'Group commits: one write (and with fsync always, one fdatasync) of every batch queued.', ['topic']);
export const fsyncSeconds = m.histogram('fdatasync_seconds', 'Duration of the fdatasync of a group commit.', [], [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5]);
export const truncatedBytes = m.counter('recovery_truncated_bytes_total', 'Bytes of torn tail cut from segments when the log was opened.', ['topic']);
export const compactionPasses = m.counter('compaction_passes_total', 'Compaction passes of a compacted partition (docs/embedded-log.md, "Retention and compaction").', ['topic']);
export const compactionRemovedRecords = m.counter('compaction_removed_records_total', 'Records compaction removed: superseded by a later record of their key, expired tombstones, aborted transactions.', ['topic']);
export const compactionRewrittenSegments = m.counter('compaction_rewritten_segments_total', 'Closed segments a compaction pass rewrote (the others lost nothing).', ['topic']);
export const compactionSeconds = m.histogram('compaction_seconds', 'Duration of a compaction pass of one partition.', [], [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60]);
