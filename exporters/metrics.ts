// Prometheus metrics of the export runner (flowagg_export_*), one series per exporter kind; lag per
// partition of flows.processed.
import { componentMetrics } from '../lib/telemetry/metrics.js';

const m = componentMetrics('export');

export const exportMetrics = {
  records: m.counter('records_total', 'Records the destination accepted (committed after)', ['exporter']),
  batches: m.counter('batches_total', 'Batches the destination accepted', ['exporter']),
  failures: m.counter('delivery_failures_total', 'Failed deliveries of a batch (each is retried after a backoff)', ['exporter']),
  redelivered: m.counter(
    'redelivered_records_total',
    'Records delivered again after an attempt that may have delivered them (a crash before the commit, a failure part-way): duplicates at destinations that cannot deduplicate',
    ['exporter'],
  ),
  undecodable: m.counter('undecodable_records_total', 'Records of flows.processed that are not FlowRecords (skipped and committed past; still in the log)', ['exporter']),
  retrying: m.gauge('retrying_partitions', 'Partitions whose batch is waiting for a retry', ['exporter']),
  retryDelay: m.gauge('retry_delay_seconds', 'The backoff chosen at the latest failed delivery', ['exporter']),
  lag: m.gauge('lag_records', 'Offsets of flows.processed not yet committed by the exporter (the log end read every few seconds, also while the destination is down)', ['exporter', 'partition']),
  oldestAge: m.gauge('oldest_unexported_age_seconds', 'Age of the oldest record of flows.processed the exporter read and the destination has not accepted yet (0: none waiting)', ['exporter']),
  destinationUp: m.gauge('destination_up', '1 while the destination accepts what the exporter sends, 0 while it is unreachable (retrying) or not reached yet', ['exporter']),
  lostToRetention: m.counter(
    'lost_to_retention_offsets_total',
    "Offsets of flows.processed the log's retention removed before the exporter read them: their records never reach the destination (each loss is logged with its partition and offset range; the processor's transaction markers among them count too)",
    ['exporter'],
  ),
  deliverySeconds: m.histogram('delivery_seconds', 'Time for the destination to accept a batch', ['exporter'], [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30]),
};

/** The series one partition worker updates, resolved once per assignment. */
export function partitionSeries(exporter: string, partition: number) {
  const records = exportMetrics.records.labels(exporter);
  const batches = exportMetrics.batches.labels(exporter);
  const failures = exportMetrics.failures.labels(exporter);
  const redelivered = exportMetrics.redelivered.labels(exporter);
  const undecodable = exportMetrics.undecodable.labels(exporter);
  const lost = exportMetrics.lostToRetention.labels(exporter);
  const retrying = exportMetrics.retrying.labels(exporter);
  const retryDelay = exportMetrics.retryDelay.labels(exporter);
  const lag = exportMetrics.lag.labels(exporter, String(partition));
  const seconds = exportMetrics.deliverySeconds.labels(exporter);
  let high = 0;
  let committed = 0;
  return {
    delivered(n: number, s: number) {
      records.inc(n);
      batches.inc();
      seconds.observe(s);
    },
    failed: () => failures.inc(),
    redelivered: (n: number) => redelivered.inc(n),
    undecodable: () => undecodable.inc(),
    lostToRetention: (offsets: number) => lost.inc(offsets),
    /** `wasRetrying`: the state before; `delayMs`: the backoff now, undefined when no longer retrying. */
    retrying(wasRetrying: boolean, delayMs: number | undefined) {
      if (delayMs !== undefined) retryDelay.set(delayMs / 1000);
      if (!wasRetrying && delayMs !== undefined) retrying.inc();
      else if (wasRetrying && delayMs === undefined) retrying.dec();
    },
    highWatermark(offset: number) {
      high = Math.max(high, offset);
      lag.set(Math.max(0, high - committed));
    },
    committed(offset: number) {
      committed = offset;
      lag.set(Math.max(0, high - committed));
    },
    lag: () => Math.max(0, high - committed),
  };
}

export type PartitionSeries = ReturnType<typeof partitionSeries>;
