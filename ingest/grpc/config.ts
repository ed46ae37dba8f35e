// The `ingest.grpc` section: Antrea's gRPC collector (FlowExportService on 14739), its limits and keepalive.
// Defaults follow Antrea's grpc-go server where it sets one (4 MiB messages, a ping after 2 h idle, 20 s to
// answer) and bound what Antrea leaves unbounded (streams and connections per peer, the TLS handshake).
import { z } from 'zod';
import { byteSize, duration, port } from '../../lib/config/types.js';

export const grpcSection = z
  .strictObject({
    enabled: z.boolean().default(true).describe("Run Antrea's gRPC collector (FlowExportService.Export); Antrea always runs it."),
    port: port.default(14739).describe("Port of the gRPC collector (Antrea's, hard-coded there)."),
    maxMessageBytes: byteSize.pipe(z.number().int().min(1024).max(64 * 1024 * 1024)).default(4 * 1024 * 1024)
      .describe("Largest ExportRequest accepted (grpc-go's default receive limit); a larger one ends its stream with RESOURCE_EXHAUSTED."),
    maxConnections: z.number().int().positive().default(8192).describe('TLS connections of the gRPC collector open at once, in all (a 5,000-Node cluster holds 5,000; they count against ingest.tcp.maxConnections too).'),
    maxConnectionsPerPeer: z.number().int().positive().default(8).describe('Connections open at once from one address (an Agent keeps one); more are closed at accept.'),
    maxStreamsPerConnection: z.number().int().positive().default(16).describe('Concurrent streams on one connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS; an Agent opens one).'),
    maxStreamsPerPeer: z.number().int().positive().default(32).describe('Export streams open at once from one address, over all its connections; more are refused with RESOURCE_EXHAUSTED.'),
    flowControlWindow: byteSize.pipe(z.number().int().min(65_535).max(16 * 1024 * 1024)).default(1024 * 1024)
      .describe("HTTP/2 flow-control window granted to each connection and each of its streams: how far an Agent may send ahead of what the collector has read. HTTP/2's default, 64 KiB, held each Agent to about 2,000 flows/s whenever a busy event loop read late (measured end to end); grpc-go, Antrea's server, grows its windows up to 16 MiB. While the log is behind and the streams are paused, a connection holds at most this much, so maxConnections × this in all."),
    handshakeTimeout: duration.default(10_000).describe('A TLS handshake not finished after this is dropped, so that silent sockets cannot hold connection slots.'),
    maxConnectionIdle: duration.default(300_000).describe('A connection with no stream for this long (from its handshake, or its last stream) is closed (GOAWAY), so that it cannot hold a connection slot; 0 never. Agents keep their stream open.'),
    keepalive: z
      .strictObject({
        time: duration.default(7_200_000).describe("Idle time after which the server pings the client (grpc-go's default, 2 h)."),
        timeout: duration.default(20_000).describe('How long that ping may go unanswered before the connection is closed.'),
      })
      .prefault({})
      .describe('Server pings on idle connections.'),
  })
  .prefault({})
  .describe("Antrea's gRPC collector, FlowExportService on port 14739 (docs/grpc.md).");

export type GrpcConfig = z.output<typeof grpcSection>;
