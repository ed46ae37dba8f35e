// Antrea's FlowStreamService: GetFlows (server streaming) on port 14740, server TLS with ingest's server
// certificate and no client authentication, as Antrea serves it. Each call reads flows.processed with the
// log's group-less reader (no group, no commits): see stream.ts. The TLS side is the gRPC collector's
// listener (limits per peer, handshake timeout) without the client-certificate requirement.
//
// createFlowStream() is inert; start() obtains the certificates and listens; stop() ends every call (OK).
import * as grpc from '@grpc/grpc-js';
import type { ServerWritableStream, ServiceDefinition } from '@grpc/grpc-js';
import { errorMessage } from '../../lib/errors.js';
import type { MessageLog, Reader } from '../../lib/log/types.js';
import { Lifecycle } from '../../lib/service/lifecycle.js';
import type { Service } from '../../lib/service/service.js';
import { componentLogger, type Logger, sampledLogger } from '../../lib/telemetry/logger.js';
import { antreaType, GET_FLOWS_PATH } from '../../schemas/antrea-proto.js';
import { flowRecordReader } from '../../schemas/flow-record.js';
import { listenGrpc } from '../../lib/listeners/grpc.js';
import { exporterAddress } from '../../lib/listeners/address.js';
import { ConnectionAdmission } from '../../lib/listeners/admission.js';
import type { StreamListener } from '../../lib/listeners/tcp.js';
import type { CertificateSource } from '../../lib/tls/provider.js';
import { startCertificateSource } from '../../lib/tls/start.js';
import type { FlowStreamServiceConfig } from './config.js';
import { FLOWSTREAM_STATE } from './errors.js';
import { compileFilters, type FlowFilterInput, type FlowObject } from './filter.js';
import { flowStreamMetrics } from './metrics.js';
import { streamFlows } from './stream.js';

const GetFlowsRequest = antreaType('GetFlowsRequest');
const GetFlowsResponse = antreaType('GetFlowsResponse');

interface Request {
  filters: FlowFilterInput[];
  since: { seconds: number; nanos: number } | null;
  max_count: number;
  follow: boolean;
}

export const FLOW_STREAM_SERVICE: ServiceDefinition = {
  GetFlows: {
    path: GET_FLOWS_PATH, requestStream: false, responseStream: true,
    requestSerialize: (r: Request) => Buffer.from(GetFlowsRequest.encode(GetFlowsRequest.fromObject(r)).finish()),
    requestDeserialize: (b: Buffer) => GetFlowsRequest.toObject(GetFlowsRequest.decode(b), { longs: Number, enums: Number, defaults: true, arrays: true }) as Request,
    responseSerialize: (b: Buffer) => b,
    responseDeserialize: (b: Buffer) => b,
  },
};

export interface FlowStreamDeps {
  readonly log: MessageLog;
  /** The server certificate; by default made from ingest.tls (and started and stopped with the service). */
  readonly certificates?: CertificateSource;
  readonly logger?: Logger;
}

export interface FlowStream extends Service {
  readonly port: number | undefined;
  /** GetFlows calls open now. */
  readonly streams: number;
}

export function createFlowStream(serviceConfig: FlowStreamServiceConfig, deps: FlowStreamDeps): FlowStream {
  const config = serviceConfig.flowStreamService;
  const { host, tls } = serviceConfig.ingest;
  const topic = serviceConfig.log.topics.flowsProcessed;
  const logger = deps.logger ?? componentLogger('flowstream');
  const warn = sampledLogger(logger);
  const decoder = flowRecordReader();
  const perPeer = new Map<string, number>();
  const lifecycle = new Lifecycle('flowstream', FLOWSTREAM_STATE, logger);
  /** Calls end once the service stops (a call may arrive before start() returned). */
  const stopping = () => lifecycle.state === 'stopping' || lifecycle.state === 'stopped';
  let open = 0;
  let port: number | undefined;
  let reader: Reader | undefined;
  let listener: StreamListener | undefined;
  let server: grpc.Server | undefined;
  let certificates: CertificateSource | undefined;
  let ownsCertificates = false;

  async function getFlows(call: ServerWritableStream<Request, Buffer>): Promise<void> {
    const peer = call.getPeer();
    const address = exporterAddress(peer.slice(0, Math.max(0, peer.lastIndexOf(':'))).replace(/^\[|\]$/g, ''));
    const fail = (code: grpc.status, details: string, reason: string) => {
      flowStreamMetrics.calls.inc({ code: grpc.status[code] });
      if (reason !== '') flowStreamMetrics.refused.inc({ reason });
      call.emit('error', { code, details });
    };
    const req = call.request;
    const filters = compileFilters(req.filters);
    if ('error' in filters) return fail(grpc.status.INVALID_ARGUMENT, filters.error, '');
    if (open >= config.maxStreams) return fail(grpc.status.RESOURCE_EXHAUSTED, `more than ${config.maxStreams} GetFlows calls open`, 'streams');
    if ((perPeer.get(address) ?? 0) >= config.maxStreamsPerPeer) return fail(grpc.status.RESOURCE_EXHAUSTED, `more than ${config.maxStreamsPerPeer} GetFlows calls from ${address}`, 'peer_streams');
    open++;
    perPeer.set(address, (perPeer.get(address) ?? 0) + 1);
    flowStreamMetrics.open.inc();
    let code = 'OK';
    try {
      await streamFlows(
        {
          matches: filters.matches,
          sinceMs: req.since === null ? undefined : req.since.seconds * 1000 + Math.floor(req.since.nanos / 1e6),
          maxCount: req.max_count,
          follow: req.follow,
        },
        {
          reader: reader!, admin: deps.log.admin(), topic, decode: (v) => decoder.decode(v),
          batchFlows: config.batchFlows, waitMs: config.idleWait, ended: () => stopping() || call.cancelled,
          warn: (fields, msg) => warn(`flowstream:${msg}`, fields, msg),
          send: async (flows: FlowObject[], droppedCount: number) => {
            const bytes = Buffer.from(GetFlowsResponse.encode(GetFlowsResponse.fromObject({ flows, dropped_count: droppedCount })).finish());
            flowStreamMetrics.flows.inc(flows.length);
            if (!call.write(bytes)) await new Promise<void>((resolve) => { call.once('drain', resolve); call.once('cancelled', resolve); });
          },
        },
      );
      if (call.cancelled) code = 'CANCELLED';
      else call.end();
    } catch (err) {
      if (stopping()) {
        // The reader was closed under a waiting fetch: shutdown ends calls with OK, as Antrea's does.
        call.end();
      } else {
        code = 'INTERNAL';
        logger.error({ err: errorMessage(err) }, 'a GetFlows call failed');
        call.emit('error', { code: grpc.status.INTERNAL, details: errorMessage(err) });
      }
    } finally {
      open--;
      const n = (perPeer.get(address) ?? 1) - 1;
      if (n === 0) perPeer.delete(address);
      else perPeer.set(address, n);
      flowStreamMetrics.open.dec();
      flowStreamMetrics.calls.inc({ code });
    }
  }

  async function start(): Promise<void> {
    ownsCertificates = deps.certificates === undefined;
    certificates = deps.certificates ?? (await startCertificateSource(tls, serviceConfig.flowAggregatorAddress));
    await deps.log.admin().createTopics([{ topic, partitions: serviceConfig.log.topics.flowsProcessedPartitions, cleanupPolicy: 'delete' }]);
    reader = deps.log.reader();
    server = new grpc.Server({ 'grpc.max_receive_message_length': config.maxRequestBytes });
    server.addService(FLOW_STREAM_SERVICE, { GetFlows: (call: ServerWritableStream<Request, Buffer>) => void getFlows(call) });
    const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
    listener = await listenGrpc(
      {
        host, port: config.port,
        admission: new ConnectionAdmission({ maxConnections: config.maxConnections, maxPerSource: config.maxConnectionsPerPeer, reservedForKnown: 0 }),
        handshakeTimeoutMs: config.handshakeTimeout, minVersion: tls.minVersion, certificates, clientCertificate: false,
      },
      {
        connection: (socket) => injector.injectConnection(socket),
        refused: (reason, address, detail) => {
          flowStreamMetrics.refused.inc({ reason });
          warn(`flowstream-refused:${reason}:${address}`, { client: address, reason, err: detail }, 'refused a FlowStreamService client');
        },
      },
    );
    port = listener.port;
    logger.info({ port, topic }, 'FlowStreamService started');
  }

  /** Also the cleanup of a failed start: each part is released if it was made. */
  async function stop(): Promise<void> {
    await reader?.close();
    // Calls see the service stopping after their fetch returns, and end with OK.
    for (let i = 0; i < 100 && open > 0; i++) await new Promise((r) => setTimeout(r, 20));
    await listener?.close();
    server?.forceShutdown();
    if (ownsCertificates) certificates?.stop();
  }

  return {
    name: 'flowstream',
    get state() {
      return lifecycle.state;
    },
    get port() {
      return port;
    },
    get streams() {
      return open;
    },
    start: () => lifecycle.start(start, stop),
    stop: () => lifecycle.stop(stop),
    readiness: () => lifecycle.readiness(),
    onFailure: (listener) => lifecycle.onFailure(listener),
  };
}
