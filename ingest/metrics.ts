// Prometheus metrics of the ingest service (flowagg_ingest_*). Per-exporter series are labelled with the
// exporter's address only (not its port, which changes with every TCP reconnect), so their number is
// bounded by the number of exporters. Sessions cache their labelled children: no label hashing per message.
import { componentMetrics } from '../lib/telemetry/metrics.js';

const m = componentMetrics('ingest');

export const ingestMetrics = {
  messages: m.counter('messages_total', 'IPFIX messages received', ['exporter', 'transport']),
  records: m.counter('records_total', 'Flow data records decoded and queued for flows.raw', ['exporter', 'transport']),
  optionsRecords: m.counter('options_records_total', 'Options data records received (read for systemInitTimeMilliseconds, not written)', ['exporter']),
  decodeErrors: m.counter('decode_errors_total', 'Problems in received IPFIX, by error code (sets or records skipped, or the message)', ['exporter', 'reason']),
  droppedMessages: m.counter('dropped_messages_total', 'Messages not processed: queue_full (UDP under backpressure), malformed, oversized', ['exporter', 'reason']),
  droppedRecords: m.counter('dropped_records_total', 'Decoded records that never reached flows.raw: log_rejected, shutdown', ['reason']),
  written: m.counter('written_records_total', 'Records the log acknowledged in flows.raw'),
  templates: m.counter('templates_total', 'Templates learned, from exporters or from the ipfix.templates topic', ['source']),
  templatesPublished: m.counter('templates_published_total', 'UDP templates written to the ipfix.templates topic'),
  sequenceLost: m.counter('sequence_lost_records_total', 'Data records lost in transit, from gaps in IPFIX sequence numbers', ['exporter', 'domain']),
  sequenceLate: m.counter('sequence_late_records_total', 'Data records in messages that arrived after later ones (reordered)', ['exporter', 'domain']),
  sequenceResets: m.counter('sequence_resets_total', 'Sequence number jumps too large to be loss: exporter restarts', ['exporter', 'domain']),
  connections: m.counter('connections_total', 'TCP and TLS connections accepted', ['transport']),
  connectionsClosed: m.counter('connections_closed_total', 'TCP and TLS connections closed, by reason (end, error, malformed)', ['transport', 'reason']),
  tlsHandshakeFailures: m.counter('tls_handshake_failures_total', 'TLS clients refused during the handshake (no or untrusted certificate, old protocol)'),
  sessions: m.gauge('sessions', 'Open transport sessions', ['transport']),
  pausedSessions: m.gauge('paused_sessions', 'TCP/TLS sessions not being read because the log is behind'),
  queueRecords: m.gauge('queue_records', 'Records waiting for the log or in flight to it'),
  queueBytes: m.gauge('queue_bytes', 'Bytes of records waiting for the log or in flight to it'),
  queueThrottled: m.gauge('queue_throttled', '1 while the queue is full: streams paused, UDP dropped'),
  produceLatency: m.histogram('produce_latency_seconds', 'Time for the log to acknowledge a batch of flows.raw', [], [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
  produceFailures: m.counter('produce_failures_total', 'Failed sends of batches to flows.raw (retried unless the log says it cannot succeed)', ['retried']),
};

/** The labelled series of one exporter and transport, resolved once per session. */
export function exporterSeries(exporter: string, transport: string) {
  return {
    messages: ingestMetrics.messages.labels(exporter, transport),
    records: ingestMetrics.records.labels(exporter, transport),
  };
}

export type ExporterSeries = ReturnType<typeof exporterSeries>;
