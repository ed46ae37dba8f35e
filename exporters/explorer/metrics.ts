// Metrics of the flow explorer (flowagg_explorer_*).
import { componentMetrics } from '../../lib/telemetry/metrics.js';

const m = componentMetrics('explorer');

export const explorerMetrics = {
  records: m.counter('records_total', 'Records of flows.processed folded into the rollups'),
  unreadable: m.counter('unreadable_records_total', 'Records of flows.processed that could not be decoded, skipped'),
  outside: m.counter('outside_records_total', 'Records older than the horizon or far ahead of the clock, not in any bucket'),
  memory: m.gauge('rollup_memory_bytes', 'What the rollups hold, as accounted against explorer.maxMemory'),
  queries: m.counter('queries_total', 'API calls answered, by view', ['view']),
  refused: m.counter('refused_queries_total', 'Log-reading queries refused: too many at once in all or from one client', ['reason']),
  scanned: m.counter('scanned_records_total', 'Records read from the log by flow searches and path queries'),
};
