// Metrics of the FlowStreamService (flowagg_flowstream_*).
import { componentMetrics } from '../../lib/telemetry/metrics.js';

const m = componentMetrics('flowstream');

export const flowStreamMetrics = {
  open: m.gauge('calls_open', 'GetFlows calls open now'),
  calls: m.counter('calls_total', 'GetFlows calls ended, by gRPC status', ['code']),
  flows: m.counter('flows_sent_total', 'Flows sent to GetFlows clients'),
  refused: m.counter('refused_total', 'Connections or calls refused: handshake, alpn, peer_connections, streams, peer_streams', ['reason']),
};
