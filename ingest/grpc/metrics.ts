// Metrics of the gRPC collector beyond the ones it shares with the IPFIX listeners (records_total,
// connections_total, sessions, decode_errors_total with transport "grpc"): what it refused and how streams ended.
import { componentMetrics } from '../../lib/telemetry/metrics.js';

const m = componentMetrics('ingest');

export const grpcMetrics = {
  refused: m.counter('grpc_refused_total', 'gRPC connections or streams refused: handshake, alpn, peer_connections, peer_streams', ['reason']),
  streamsEnded: m.counter('grpc_streams_ended_total', 'Export streams ended, by gRPC status: OK (half-close), CANCELLED, INVALID_ARGUMENT, ...', ['code']),
  connections: m.gauge('grpc_connections', 'TLS connections of the gRPC collector open now'),
};
