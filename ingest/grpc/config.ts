// The `ingest.grpc` section: Antrea's gRPC collector (FlowExportService on 14739), its limits and keepalive.
// Defaults follow Antrea's grpc-go server where it sets one (4 MiB messages, a ping after 2 h idle, 20 s to
// answer) and bound what Antrea leaves unbounded (streams and connections per peer, the TLS handshake).
import { z } from 'zod';
import { byteSize, duration, port } from '../../lib/config/types.js';

export const grpcSection = z
  .strictObject({
    /** Antrea runs this collector always; off only when told. */
    enabled: z.boolean().default(true),
    /** Antrea's port (hard-coded there). */
    port: port.default(14739),
    /** Largest ExportRequest accepted (grpc-go's default receive limit); a larger one ends its stream (RESOURCE_EXHAUSTED). */
    maxMessageBytes: byteSize.pipe(z.number().int().min(1024).max(64 * 1024 * 1024)).default(4 * 1024 * 1024),
    /** Connections (TLS) open at once, in all. */
    maxConnections: z.number().int().positive().default(4096),
    /** Connections open at once from one address (an Agent keeps one). */
    maxConnectionsPerPeer: z.number().int().positive().default(8),
    /** Concurrent streams on one connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS; an Agent opens one). */
    maxStreamsPerConnection: z.number().int().positive().default(16),
    /** Export streams open at once from one address, over all its connections. */
    maxStreamsPerPeer: z.number().int().positive().default(32),
    /** A TLS handshake that has not finished after this is dropped, so that silent sockets cannot hold slots. */
    handshakeTimeout: duration.default(10_000),
    /** A connection with no stream for this long is closed (GOAWAY); 0 never. Agents keep their stream open. */
    maxConnectionIdle: duration.default(0),
    keepalive: z
      .strictObject({
        /** Idle time after which the server pings the client (grpc-go's default, 2 h). */
        time: duration.default(7_200_000),
        /** How long the ping may go unanswered before the connection is closed. */
        timeout: duration.default(20_000),
      })
      .prefault({}),
  })
  .prefault({});

export type GrpcConfig = z.output<typeof grpcSection>;
