// Prometheus metrics of the ingest service (flowagg_ingest_*). Per-exporter series are labelled with the
// exporter's address only (not its port, which changes with every TCP reconnect, nor the observation domain,
// which any sender may vary at will), and the addresses with series of their own are capped
// (ingest.metrics.maxExporters, lib/telemetry/capped-label.ts): later ones share exporter="_overflow".
// Sessions cache their labelled children: no label hashing per message.
import { componentMetrics } from '../lib/telemetry/metrics.js';

const m = componentMetrics('ingest');

export const ingestMetrics = {
  messages: m.counter('messages_total', 'IPFIX messages and NetFlow packets received', ['exporter', 'transport']),
  records: m.counter('records_total', 'Flow data records decoded and queued for flows.raw', ['exporter', 'transport']),
  optionsRecords: m.counter('options_records_total', 'Options data records received (read for systemInitTimeMilliseconds, not written)', ['exporter']),
  decodeErrors: m.counter('decode_errors_total', 'Problems in received IPFIX or NetFlow, by error code (sets or records skipped, or the message)', ['exporter', 'reason']),
  skippedSets: m.counter('skipped_sets_total', 'Sets skipped whole, whose records cannot be counted (unknown template, layout mismatch, reserved set id)', ['exporter', 'reason']),
  skippedBytes: m.counter('skipped_bytes_total', 'Bytes of the sets skipped whole', ['exporter', 'reason']),
  droppedMessages: m.counter('dropped_messages_total', 'Messages not processed: queue_full (UDP under backpressure), malformed, oversized', ['exporter', 'reason']),
  droppedRecords: m.counter('dropped_records_total', 'Decoded records that never reached flows.raw: queue_full, log_rejected, shutdown', ['reason']),
  written: m.counter('written_records_total', 'Records the log acknowledged in flows.raw'),
  templates: m.counter('templates_total', 'Templates learned, from exporters or from the ipfix.templates topic', ['source']),
  templatesEvicted: m.counter('templates_evicted_total', 'Templates evicted to keep a bound: session, exporter or total', ['reason']),
  templatesHeld: m.gauge('templates', 'Templates held by all sessions'),
  transcoderLayouts: m.gauge('transcoder_layouts', 'Template layouts in the shared transcoder cache'),
  transcoderCompilations: m.counter('transcoder_compilations_total', 'Template layouts compiled into transcoders'),
  transcoderEvictions: m.counter('transcoder_evictions_total', 'Compiled transcoders evicted from the shared cache (ingest.templates.maxLayouts)'),
  templatesPublished: m.counter('templates_published_total', 'UDP templates written to the ipfix.templates topic'),
  templatesUnpublished: m.counter('templates_unpublished_total', 'UDP templates not written to ipfix.templates (the sender\'s publication budget was spent); published at its next refresh'),
  sequenceLost: m.counter('sequence_lost_records_total', 'Data records lost in transit, from gaps in IPFIX (and NetFlow v5) sequence numbers this replica can judge', ['exporter', 'transport']),
  sequenceLostPackets: m.counter('sequence_lost_packets_total', 'NetFlow v9 packets lost in transit, from gaps in their sequence numbers (v9 numbers packets, not records)', ['exporter', 'transport']),
  sequenceLate: m.counter('sequence_late_records_total', 'Data records in messages that arrived after later ones (reordered)', ['exporter', 'transport']),
  sequenceResets: m.counter('sequence_resets_total', 'Sequence number jumps too large to be loss: exporter restarts', ['exporter', 'transport']),
  auditLost: m.counter('sequence_audit_lost_records_total', 'Records an exporter numbered that are not in flows.raw, across every replica (sequence audit)', ['exporter']),
  auditLate: m.counter('sequence_audit_late_records_total', 'Records found in flows.raw after later ones were judged (sequence audit)', ['exporter']),
  auditResets: m.counter('sequence_audit_resets_total', 'Sequence jumps too large to be loss, across every replica (sequence audit)', ['exporter']),
  auditStreams: m.gauge('sequence_audit_streams', 'Exporter streams the sequence audit follows'),
  auditPartitionsMissing: m.gauge('sequence_audit_partitions_missing', 'Partitions of flows.raw the sequence audit does not read (it judges nothing while > 0)'),
  sequenceStreamsEvicted: m.counter('sequence_streams_evicted_total', 'Sequence-number streams forgotten to keep ingest.sequence.maxStreams'),
  connections: m.counter('connections_total', 'TCP and TLS connections accepted', ['transport']),
  connectionsRefused: m.counter('connections_refused_total', 'TCP and TLS connections refused: max_connections, per_source, reserved (slots kept for known exporters)', ['transport', 'reason']),
  connectionsClosed: m.counter('connections_closed_total', 'TCP and TLS connections closed, by reason (end, error, malformed, and the timeouts first_message, partial_message, idle)', ['transport', 'reason']),
  tlsHandshakeFailures: m.counter('tls_handshake_failures_total', 'TLS clients refused during the handshake (no or untrusted certificate, old protocol, handshake timeout)'),
  sessions: m.gauge('sessions', 'Open transport sessions', ['transport']),
  pausedSessions: m.gauge('paused_sessions', 'TCP/TLS sessions not being read because the log is behind'),
  queueRecords: m.gauge('queue_records', 'Records waiting for the log or in flight to it'),
  queueBytes: m.gauge('queue_bytes', 'Bytes of records waiting for the log or in flight to it'),
  queueThrottled: m.gauge('queue_throttled', '1 while the queue is full: streams paused, UDP dropped'),
  produceLatency: m.histogram('produce_latency_seconds', 'Time for the log to acknowledge a batch of flows.raw', [], [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
  produceFailures: m.counter('produce_failures_total', 'Failed sends of batches to flows.raw (retried unless the log says it cannot succeed)', ['retried']),
};

/** The labelled series of one exporter label and transport, resolved once per session. */
export function exporterSeries(exporter: string, transport: string) {
  return {
    label: exporter,
    messages: ingestMetrics.messages.labels(exporter, transport),
    records: ingestMetrics.records.labels(exporter, transport),
  };
}

export type ExporterSeries = ReturnType<typeof exporterSeries>;
