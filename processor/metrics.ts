// Prometheus metrics of the processor (flowagg_processor_*). Labels are bounded: the mode, a reason
// from a fixed set, or an input partition number.
import { componentMetrics } from '../lib/telemetry/metrics.js';

const m = componentMetrics('processor');

export const processorMetrics = {
  records: m.counter('records_total', 'Input records of flows.raw processed', ['mode']),
  badRecords: m.counter('bad_records_total', 'Input records skipped: not a readable FlowRecord, or no flow start/end time (aggregate mode, as Antrea)', ['reason']),
  outputs: m.counter('output_records_total', 'Aggregated or proxied records written to flows.processed (committed)', ['mode']),
  changelog: m.counter('changelog_records_total', 'Records written to processor.state (committed), tombstones included'),
  stale: m.counter('stale_records_total', 'Records ignored as not newer than the previous one from the same Node'),
  late: m.counter('late_records_total', "Records whose event time was behind their partition's by more than processor.allowedLateness (aggregated all the same: into their flow if it is still held, else as a new one)"),
  correlated: m.counter('correlated_flows_total', 'Inter-Node flows whose two halves met'),
  uncorrelated: m.counter('uncorrelated_flows_total', 'Halves whose peer never came within the retry budget, by what happened to them', ['action']),
  passedThrough: m.counter('passed_through_records_total', 'Aggregate mode: NetFlow v9/v5 records written to flows.processed as they came, never correlated with Antrea\'s halves nor aggregated'),
  evicted: m.counter('evicted_flows_total', 'Flows expired early because their partition held processor.maxFlowsPerPartition flows'),
  commits: m.counter('commits_total', 'Transactions committed (outputs, changelog and input offsets together)'),
  commitFailures: m.counter('commit_failures_total', 'Transactions that failed; the partition is rebuilt from its changelog', ['reason']),
  commitSeconds: m.histogram('commit_seconds', 'Time from the start of a transaction to its commit', [], [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]),
  restoredRecords: m.counter('restored_records_total', 'Changelog records read to restore partitions on assignment'),
  replayedOffsets: m.counter('replayed_offsets_total', "Input offsets read again after a restore: from the state's checkpoint to the committed offset"),
  checkpoints: m.counter('checkpoints_total', 'Commits that wrote a checkpoint of the aggregation state (the flows changed since the last one)'),
  restoreSeconds: m.histogram('restore_seconds', 'Time to restore the state of a partition from its changelog', [], [0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]),
  partitions: m.gauge('partitions', 'Input partitions assigned to this instance'),
  flows: m.gauge('flows', 'Flows held in aggregation state'),
  watermarkLag: m.gauge('watermark_lag_seconds', 'Wall time minus the event-time watermark of the partition', ['partition']),
  clockLag: m.gauge('clock_lag_seconds', "The partition's receive clock (ingest's time, from the log) minus its event time: how far its slowest active source holds it back", ['partition']),
  clockSources: m.gauge('clock_sources', "Sources (exporter address and observation domain) the partition's clock tracks", ['partition']),
};
