// Antrea's gRPC collector: FlowExportService.Export (client streaming) on port 14739, beside the IPFIX
// listeners of the ingest service and writing into the same produce queue. The TLS side (listener.ts) is
// flowagg's, so that it can bound connections per peer and handshake time; each connection that passes is
// injected into a grpc-js server, which speaks HTTP/2 and gRPC on it with the configured limits (message
// size, concurrent streams per connection, keepalive, idle connections). Messages reach the handler as raw
// bytes (identity (de)serializers): export-stream.ts transcodes them straight to FlowRecords.
//
// The same limits as the IPFIX stream listeners (issue 11), per stream and per peer: its connections count
// against ingest.tcp's budget too (one ConnectionAdmission within the other), a peer counts as known once it
// has sent a valid ExportRequest, its exporter label is one of ingest.metrics.maxExporters (or _overflow), and
// client pings are bounded as grpc-go bounds them (ping-policy.ts).
import { type Http2Server, type ServerHttp2Session, constants as h2 } from 'node:http2';
import type { Server, ServerReadableStream, sendUnaryData, ServiceDefinition } from '@grpc/grpc-js';
import * as grpc from '@grpc/grpc-js';
import { ConnectionAdmission } from '../../lib/listeners/admission.js';
import { exporterAddress } from '../../lib/listeners/address.js';
import type { CappedLabel } from '../../lib/telemetry/capped-label.js';
import type { StreamListener } from '../../lib/listeners/tcp.js';
import type { TlsMaterialSource } from '../../lib/listeners/tls.js';
import { type ExporterSeries, exporterSeries, ingestMetrics } from '../metrics.js';
import type { ProduceQueue } from '../produce-queue.js';
import type { TlsMaterial } from '../../lib/tls/provider.js';
import { type Logger, sampledLogger } from '../../lib/telemetry/logger.js';
import { EXPORT_PATH } from '../../schemas/antrea-proto.js';
import type { AvroFraming } from '../../schemas/avro.js';
import type { GrpcConfig } from './config.js';
import { handleExport, type StreamCounters } from './export-stream.js';
import { FlowTranscoder } from './flow-transcode.js';
import { listenGrpc } from '../../lib/listeners/grpc.js';
import { grpcMetrics } from './metrics.js';
import { GRPC_GO_PING_LIMITS, PingPolicy } from './ping-policy.js';

const identity = (b: Buffer) => b;

/** FlowExportService with its messages left as bytes. */
export const EXPORT_SERVICE: ServiceDefinition = {
  Export: {
    path: EXPORT_PATH, requestStream: true, responseStream: false,
    requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity,
  },
};

export interface GrpcCollectorDeps {
  readonly queue: ProduceQueue;
  readonly certificates: TlsMaterialSource<TlsMaterial>;
  /** The connection budget shared with the IPFIX stream listeners (ingest.tcp); none by default. */
  readonly admission?: ConnectionAdmission;
  /** Exporter labels with series of their own, shared with the IPFIX listeners (ingest.metrics.maxExporters). */
  readonly labels: CappedLabel;
  readonly logger: Logger;
  readonly now?: () => number;
  /** The Avro framing of flows.raw values (single-object by default, or Confluent with the registry's id). */
  readonly framing?: AvroFraming;
}

export interface GrpcCollectorStats {
  /** Flows queued for flows.raw. */
  readonly records: number;
  /** Export streams open now (Antrea's connected exporters). */
  readonly streams: number;
  /** Streams ended for a malformed message. */
  readonly malformed: number;
  readonly connections: number;
}

export interface GrpcCollector {
  readonly port: number;
  stats(): GrpcCollectorStats;
  /** Closes every connection (open streams end) and stops listening. */
  close(): Promise<void>;
}

export async function startGrpcCollector(config: GrpcConfig, host: string, minVersion: 'TLSv1.2' | 'TLSv1.3', deps: GrpcCollectorDeps): Promise<GrpcCollector> {
  const server: Server = new grpc.Server({
    'grpc.max_receive_message_length': config.maxMessageBytes,
    'grpc.max_concurrent_streams': config.maxStreamsPerConnection,
    'grpc.keepalive_time_ms': config.keepalive.time,
    'grpc.keepalive_timeout_ms': config.keepalive.timeout,
    ...(config.maxConnectionIdle > 0 && { 'grpc.max_connection_idle_ms': config.maxConnectionIdle }),
  });
  const stats = { records: 0, streams: 0, malformed: 0, connections: 0 };
  const streamsPerPeer = new Map<string, number>();
  // One entry per label: at most ingest.metrics.maxExporters and _overflow.
  const series = new Map<string, ExporterSeries>();
  const open = new Set<StreamCounters>();
  const admission = new ConnectionAdmission({
    maxConnections: config.maxConnections, maxPerSource: config.maxConnectionsPerPeer, reservedForKnown: 0,
    keys: { maxConnections: 'ingest.grpc.maxConnections', maxPerSource: 'ingest.grpc.maxConnectionsPerPeer' },
  }, deps.admission);
  const flush = (c: StreamCounters) => {
    if (c.messages === 0 && c.records === 0) return;
    const label = deps.labels.of(c.address, false);
    let s = series.get(label);
    if (s === undefined) series.set(label, (s = exporterSeries(label, 'grpc')));
    s.messages.inc(c.messages);
    s.records.inc(c.records);
    c.messages = c.records = 0;
  };
  const flusher = setInterval(() => open.forEach(flush), 1000);
  flusher.unref();
  const warn = sampledLogger(deps.logger);
  const writer = deps.queue.runWriter();
  let enqueueScheduled = false;
  const enqueueWritten = () => {
    enqueueScheduled = false;
    deps.queue.enqueueRuns(writer.take());
  };
  const exportDeps = {
    queue: deps.queue, transcoder: new FlowTranscoder(deps.framing), writer, now: deps.now ?? Date.now, stats, warn,
    written() {
      if (enqueueScheduled) return;
      enqueueScheduled = true;
      setImmediate(enqueueWritten);
    },
    maxStreamsPerPeer: config.maxStreamsPerPeer,
    admit(address: string) {
      const n = (streamsPerPeer.get(address) ?? 0) + 1;
      if (n > config.maxStreamsPerPeer) return false;
      streamsPerPeer.set(address, n);
      return true;
    },
    release(address: string) {
      const n = (streamsPerPeer.get(address) ?? 1) - 1;
      if (n === 0) streamsPerPeer.delete(address);
      else streamsPerPeer.set(address, n);
    },
    counters(address: string) {
      const c = { address, messages: 0, records: 0 };
      open.add(c);
      return c;
    },
    validated(address: string) {
      admission.trust(address);
      deps.labels.of(address);
    },
    label: (address: string) => deps.labels.of(address, false),
    ended(c: StreamCounters) {
      flush(c);
      open.delete(c);
    },
  };
  server.addService(EXPORT_SERVICE, {
    Export: (call: ServerReadableStream<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => handleExport(call, callback, exportDeps),
  });
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  const http2Servers = http2ServersOf(server);
  grantWindows(http2Servers, config.flowControlWindow);
  boundPings(http2Servers, (session) => {
    const address = session.socket?.remoteAddress ?? '';
    grpcMetrics.refused.inc({ reason: 'too_many_pings' });
    warn(`grpc-pings:${address}`, { exporter: address }, 'sent a gRPC client away for pinging too often (GOAWAY too_many_pings)');
  });
  const listener: StreamListener = await listenGrpc(
    {
      host, port: config.port,
      admission,
      handshakeTimeoutMs: config.handshakeTimeout, minVersion, certificates: deps.certificates,
    },
    {
      connection(socket) {
        // The handshake verified a client certificate of the collector's CA, stronger proof than any valid
        // message: the Agent is known from now on. Agents hold their stream open until they have a flow to
        // send, so a whole cluster's Agents reconnecting at once would otherwise fill the slots for unknown
        // addresses and keep the rest out (5,000 gRPC Agents: 4,096 got in).
        admission.trust(exporterAddress(socket.remoteAddress ?? ''));
        stats.connections++;
        grpcMetrics.connections.inc();
        ingestMetrics.connections.inc({ transport: 'grpc' });
        socket.once('close', (hadError) => {
          stats.connections--;
          grpcMetrics.connections.dec();
          ingestMetrics.connectionsClosed.inc({ transport: 'grpc', reason: hadError ? 'error' : 'end' });
        });
        injector.injectConnection(socket);
      },
      refused(reason, address, detail) {
        grpcMetrics.refused.inc({ reason });
        if (reason === 'handshake') ingestMetrics.tlsHandshakeFailures.inc();
        warn(`grpc-refused:${reason}:${address}`, { exporter: address, reason, err: detail }, 'refused a gRPC client');
      },
    },
  );
  return {
    port: listener.port,
    stats: () => ({ ...stats }),
    async close() {
      clearInterval(flusher);
      enqueueWritten();
      open.forEach(flush);
      injector.destroy();
      await listener.close();
      server.forceShutdown();
    },
  };
}

const TOO_MANY_PINGS = Buffer.from('too_many_pings');

/**
 * grpc-js keeps its HTTP/2 servers to itself, and has no option for their windows: they are read from its
 * `http2Servers` field (grpc-js is pinned; a version without it fails here, at start).
 */
function http2ServersOf(server: Server): readonly Http2Server[] {
  const servers = (server as unknown as { http2Servers?: Map<Http2Server, unknown> }).http2Servers;
  if (!(servers instanceof Map) || servers.size === 0) throw new Error('grpc-js no longer exposes its HTTP/2 servers (Server.http2Servers): the ping bound and the flow-control windows cannot be applied');
  return [...servers.keys()];
}

/** Grants every session `bytes` of flow-control window, for the connection and for each stream. */
function grantWindows(servers: readonly Http2Server[], bytes: number): void {
  for (const http2Server of servers) {
    http2Server.on('session', (session: ServerHttp2Session) => {
      session.settings({ initialWindowSize: bytes });
      session.setLocalWindowSize(bytes);
    });
  }
}

/** Applies the ping policy to every HTTP/2 session of the servers. */
function boundPings(servers: readonly Http2Server[], sentAway: (session: ServerHttp2Session) => void): void {
  for (const http2Server of servers) {
    http2Server.on('session', (session: ServerHttp2Session) => {
      const policy = new PingPolicy(GRPC_GO_PING_LIMITS);
      session.on('ping', () => {
        if (policy.received(performance.now()) || session.closed) return;
        sentAway(session);
        session.goaway(h2.NGHTTP2_ENHANCE_YOUR_CALM, 0, TOO_MANY_PINGS);
        session.destroy();
      });
    });
  }
}
