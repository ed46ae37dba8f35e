import { componentMetrics } from '../telemetry/metrics.js';

const m = componentMetrics('ingest_tls');

export const tlsMetrics = {
  issued: m.counter('certificates_issued_total', 'Certificates issued, by kind (ca, server, client)', ['kind'] as const),
  syncFailures: m.counter('sync_failures_total', 'Certificate checks that failed (store unreachable, conflicts, unreadable files)'),
  expiry: m.gauge('certificate_expiry_timestamp_seconds', 'Expiry of the certificates in use, by kind', ['kind'] as const),
};
