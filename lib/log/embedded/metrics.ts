// Metrics of the embedded log (flowagg_log_embedded_*), per topic.
import { componentMetrics } from '../../telemetry/metrics.js';

const m = componentMetrics('log_embedded');

export const appendedRecords = m.counter('appended_records_total', 'Records acknowledged by appends (group commits).', ['topic']);
export const groupCommits = m.counter('group_commits_total', 'Group commits: one write (and with fsync always, one fdatasync) of every batch queued.', ['topic']);
export const fsyncSeconds = m.histogram('fdatasync_seconds', 'Duration of the fdatasync of a group commit.', [], [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5]);
export const truncatedBytes = m.counter('recovery_truncated_bytes_total', 'Bytes of torn tail cut from segments when the log was opened.', ['topic']);
