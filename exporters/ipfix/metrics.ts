// Prometheus metrics of the IPFIX exporter (flowagg_ipfix_export_*); records and batches are the
// runner's (flowagg_export_*{exporter="ipfix"}).
import { componentMetrics } from '../../lib/telemetry/metrics.js';

const m = componentMetrics('ipfix_export');

export const ipfixMetrics = {
  messages: m.counter('messages_total', 'IPFIX messages (or JSON lines) sent to the collector'),
  bytes: m.counter('bytes_total', 'Bytes sent to the collector'),
  templates: m.counter('template_announcements_total', 'Times both templates were sent: at each new session, and every templateRefreshTimeout over UDP'),
  invalid: m.counter('invalid_records_total', 'Records not exported because a value does not fit its element (e.g. a negative counter)'),
  connected: m.gauge('connected', '1 while a session to the collector is open'),
  connections: m.counter('connections_total', 'Sessions opened to the collector'),
  connectFailures: m.counter('connect_failures_total', 'Failed attempts to open a session (retried with backoff)'),
};
