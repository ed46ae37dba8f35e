// The ingest service: IPFIX collectors (UDP, TCP, TLS), the NetFlow v9/v5 collector (UDP) and Antrea's gRPC
// collector (ingest/grpc) writing
// FlowRecords to flows.raw, and UDP templates shared with the other replicas through ipfix.templates.
//
// createIngest() is inert; start() creates the topics, loads the shared templates, obtains the TLS
// certificates and binds the listeners; stop() closes the listeners (and so every session), then waits up
// to ingest.shutdownTimeout for queued records to reach the log and counts what it had to give up.
import { type Clock, systemClock } from '../lib/clock.js';
import { Lifecycle, type Readiness } from '../lib/service/lifecycle.js';
import type { Service } from '../lib/service/service.js';
import type { Consumer, MessageLog } from '../lib/log/types.js';
import type { AvroFraming } from '../schemas/avro.js';
import { componentLogger, type Logger, sampledLogger } from '../lib/telemetry/logger.js';
import type { IngestConfig, Transport } from './config.js';
import { INGEST_STATE } from './errors.js';
import { type GrpcCollector, startGrpcCollector } from './grpc/collector.js';
import { ConnectionAdmission } from '../lib/listeners/admission.js';
import { listenTcp, type StreamListener } from '../lib/listeners/tcp.js';
import { listenTls } from '../lib/listeners/tls.js';
import { listenUdp, type UdpListener } from '../lib/listeners/udp.js';
import { ingestMetrics } from './metrics.js';
import { type RunningAudit, startSequenceAudit } from './sequence-audit-consumer.js';
import { startClockTicks } from './clock-ticks.js';
import { Pipeline, type PipelineStats } from './pipeline.js';
import type { CertificateSource } from '../lib/tls/provider.js';
import { startCertificateSource } from '../lib/tls/start.js';
import { tlsServerOptions } from '../lib/tls/server-options.js';
import { TemplatePublisher, subscribeTemplates } from './templates-topic.js';

export interface IngestDeps {
  readonly log: MessageLog;
  /** TLS certificates; by default made from ingest.tls (and started and stopped with the service). */
  readonly certificates?: CertificateSource;
  /** Identifies this replica in ipfix.templates; random by default. */
  readonly replicaId?: string;
  /**
   * Whether this replica judges UDP sequence numbers itself. By default only on the embedded log (one process,
   * so one replica); on Kafka replicas may share exporters behind a load balancer, and the sequence audit
   * computes their loss from flows.raw.
   */
  readonly udpSequenceAccounting?: boolean;
  /**
   * Connection slots, shared with other collectors of the process (the gRPC collector), so that their limits
   * are one budget; made from ingest.tcp by default.
   */
  readonly admission?: ConnectionAdmission;
  readonly logger?: Logger;
  /** The time of receipt and of the periodic sweeps, checks and clock ticks; the system's by default. */
  readonly clock?: Clock;
  /** How FlowRecords are framed on flows.raw: lib/log/value-format.ts decides it from log.valueFormat. */
  readonly framing?: AvroFraming;
}

export interface Ingest extends Service {
  /** Bound ports per transport, and of the gRPC and NetFlow collectors (useful with port 0). */
  readonly ports: Readonly<Partial<Record<Transport | 'grpc' | 'netflow', number>>>;
  stats(): PipelineStats;
}

/** How often stream connections are checked against their time limits. */
const STREAM_CHECK_MS = 1000;

export function createIngest(config: IngestConfig, deps: IngestDeps): Ingest {
  const logger = deps.logger ?? componentLogger('ingest');
  const clock = deps.clock ?? systemClock;
  const now = () => clock.now();
  const logSampled = sampledLogger(logger);
  const section = config.ingest;
  const topics = config.log.topics;
  const protocols = config.aggregatorTransportProtocol;
  const producer = deps.log.producer();
  const tcpLimits = section.tcp;
  const admission = deps.admission ?? new ConnectionAdmission({
    maxConnections: tcpLimits.maxConnections, maxPerSource: tcpLimits.maxConnectionsPerSource, reservedForKnown: tcpLimits.reservedForKnownSources,
  });
  const publisher = new TemplatePublisher({ producer, topic: topics.templates, templateTtlMs: section.templateTtl, logger, ...(deps.replicaId && { replica: deps.replicaId }), now });
  const pipeline = new Pipeline(section, topics.flowsRaw, {
    producer,
    logger,
    onUdpTemplates: (exporter, templates) => {
      const { published, skipped } = publisher.publish(exporter, templates);
      if (published > 0) ingestMetrics.templatesPublished.inc(published);
      if (skipped > 0) ingestMetrics.templatesUnpublished.inc(skipped);
    },
    onUdpSessionEnd: (session) => publisher.forget(session.exporter),
    onValidStream: (address) => admission.trust(address),
    // The embedded log is one process's: then this replica is the only one and sees whole UDP streams.
    udpSequenceAccounting: deps.udpSequenceAccounting ?? deps.log.backend === 'embedded',
    now,
    ...(deps.framing && { framing: deps.framing }),
  });
  const ports: Partial<Record<Transport | 'grpc' | 'netflow', number>> = {};
  const grpcConfig = section.grpc;
  let grpc: GrpcCollector | undefined;
  const closers: (() => Promise<void>)[] = [];
  const lifecycle = new Lifecycle('ingest', INGEST_STATE, logger);
  let templatesConsumer: Consumer | undefined;
  let certificates: CertificateSource | undefined;
  let ownsCertificates = false;
  /** Stops the periodic sweeps, stream checks and clock ticks. */
  const timers: (() => void)[] = [];
  let audit: RunningAudit | undefined;

  async function listenDatagrams(port: number, kind: 'ipfix' | 'netflow'): Promise<number> {
    const udp: UdpListener = await listenUdp(
      { host: section.host, port, maxDatagramBytes: section.udp.maxDatagramBytes, receiveBufferBytes: section.udp.receiveBufferBytes },
      (msg, from) => pipeline.datagram(msg, from, kind),
      (from) => pipeline.oversizedDatagram(from),
    );
    closers.push(udp.close);
    return udp.port;
  }

  async function listen(): Promise<void> {
    const { host, port } = section;
    if (protocols.includes('udp')) ports.udp = await listenDatagrams(port, 'ipfix');
    if (section.netflow.enabled) ports.netflow = await listenDatagrams(section.netflow.port, 'netflow');
    const streamOpts = {
      host, admission,
      onRefused: (reason: string, message: string, address: string, transport: 'tcp' | 'tls') => {
        ingestMetrics.connectionsRefused.inc({ transport, reason });
        logSampled(`refused:${reason}`, { exporter: address, reason: message }, 'refused a connection');
      },
    };
    if (protocols.includes('tcp')) {
      const tcp: StreamListener = await listenTcp(
        { ...streamOpts, port, onRefused: (reason, message, address) => streamOpts.onRefused(reason, message, address, 'tcp') },
        (socket) => pipeline.stream(socket, 'tcp'),
      );
      closers.push(tcp.close);
      ports.tcp = tcp.port;
    }
    if (protocols.includes('tls')) {
      const source = certificates!;
      const tls = await listenTls(
        {
          ...streamOpts,
          onRefused: (reason, message, address) => streamOpts.onRefused(reason, message, address, 'tls'),
          port: section.tlsPort ?? port,
          handshakeTimeoutMs: section.tcp.handshakeTimeout,
          certificates: source,
          serverOptions: (material) => tlsServerOptions(material, section.tls.minVersion),
          onHandshakeError: (err, socket) => {
            ingestMetrics.tlsHandshakeFailures.inc();
            logSampled(`handshake:${socket.remoteAddress ?? ''}`, { exporter: socket.remoteAddress, err: err.message }, 'refused a TLS client');
          },
        },
        (socket) => pipeline.stream(socket, 'tls'),
      );
      closers.push(tls.close);
      ports.tls = tls.port;
    }
    if (grpcConfig.enabled) {
      grpc = await startGrpcCollector(grpcConfig, host, section.tls.minVersion, {
        queue: pipeline.queue, certificates: certificates!, admission, labels: pipeline.exporterLabels, logger, now, ...(deps.framing && { framing: deps.framing }),
      });
      const collector = grpc;
      closers.push(() => collector.close());
      ports.grpc = grpc.port;
    }
  }

  async function start(): Promise<void> {
    await deps.log.admin().createTopics([
      { topic: topics.flowsRaw, partitions: topics.flowsRawPartitions, cleanupPolicy: 'delete' },
      { topic: topics.templates, partitions: 1, cleanupPolicy: 'compact' },
    ]);
    // IPFIX over UDP arrives on the NetFlow port too.
    if (protocols.includes('udp') || section.netflow.enabled) {
      templatesConsumer = await subscribeTemplates({
        log: deps.log,
        topic: topics.templates,
        replica: publisher.replica,
        templateTtlMs: section.templateTtl,
        logger,
        install: (shared) => pipeline.installUdpTemplate(shared.exporter, shared.template),
        onFailure: (err) => lifecycle.fail(err),
        now,
      });
    }
    if (protocols.includes('tls') || grpcConfig.enabled) {
      ownsCertificates = deps.certificates === undefined;
      certificates = deps.certificates ?? (await startCertificateSource(section.tls, config.flowAggregatorAddress));
    }
    if (section.sequenceAudit.enabled) {
      audit = await startSequenceAudit({ log: deps.log, topic: topics.flowsRaw, logger, settleMs: section.sequenceAudit.settle, maxExporters: section.metrics.maxExporters, clock, onFailure: (err) => lifecycle.fail(err) });
    }
    await listen();
    timers.push(clock.every(Math.min(section.templateTtl / 4, 5000), () => pipeline.sweep()));
    timers.push(clock.every(STREAM_CHECK_MS, () => pipeline.checkStreams()));
    const raw = (await deps.log.admin().listTopics()).find((t) => t.topic === topics.flowsRaw);
    timers.push(startClockTicks(pipeline.queue, raw?.partitions ?? topics.flowsRawPartitions, section.clockTick, clock));
    logger.info({ ports, protocols, flowsRaw: topics.flowsRaw, backend: deps.log.backend }, 'ingest started');
  }

  async function stop(): Promise<void> {
    await release();
    const flushed = await pipeline.queue.flush(section.shutdownTimeout);
    if (!flushed) logger.error({ records: giveUpQueued(), timeoutMs: section.shutdownTimeout }, 'the log did not take every queued record before the shutdown timeout; they are lost');
    await producer.close();
    logger.info(stats(), 'ingest stopped');
  }

  /**
   * After a failed start, what the listeners took before it failed is given up, as a crash loses it: its
   * sends would retry for ever against a log that is closed next, and keep the process from exiting to be
   * restarted (chaos CI of 5d2acd1, seed 721990: the broker down while ingest-2 restarted).
   */
  async function releaseAfterFailedStart(): Promise<void> {
    await release();
    const records = giveUpQueued();
    if (records > 0) logger.error({ records }, 'the start failed: the records taken before it are lost');
    await producer.close();
  }

  /** Gives up what the queue holds, counted as dropped; returns how many records. */
  function giveUpQueued(): number {
    const abandoned = pipeline.queue.abandon();
    pipeline.abandoned(abandoned);
    return abandoned;
  }

  function stats(): PipelineStats {
    const s = pipeline.stats();
    const g = grpc?.stats();
    if (g === undefined) return s;
    return { ...s, records: s.records + g.records, decodeErrors: s.decodeErrors + g.malformed, streamSessions: s.streamSessions + g.streams };
  }

  return {
    name: 'ingest',
    get state() {
      return lifecycle.state;
    },
    ports,
    start: () => lifecycle.start(start, releaseAfterFailedStart),
    stop: () => lifecycle.stop(stop),
    onFailure: (listener) => lifecycle.onFailure(listener),
    stats,
    /** Ready when running and the log is keeping up (the queue is not throttled). */
    readiness: (): Readiness => lifecycle.readiness(() => (pipeline.queue.throttled ? { ready: false, detail: 'the log is behind: the ingest queue is full' } : { ready: true })),
  };

  /** Stops taking input: listeners, template consumer, certificate checks, timers. */
  async function release(): Promise<void> {
    for (const stopTimer of timers.splice(0)) stopTimer();
    for (const close of closers.splice(0).reverse()) await close();
    await templatesConsumer?.stop();
    templatesConsumer = undefined;
    await audit?.stop();
    audit = undefined;
    if (ownsCertificates) certificates?.stop();
  }
}
