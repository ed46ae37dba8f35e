// The collector's data path, between the listeners and the log: a message arrives on a session, is
// transcoded into FlowRecords (transcode-message.ts), accounted (sequence gaps, errors, per-exporter
// counters) and queued for flows.raw (produce-queue.ts). Backpressure is decided here: while the queue is
// throttled, stream sessions pause (listeners/stream.ts) and UDP datagrams are still decoded, so that
// their templates are learned, but their records are dropped and counted.
//
// Malformed input: over TCP/TLS any problem in a message closes the session (go-ipfix does the same; the
// exporter reconnects and resends its templates), after the message's good records were queued. Over UDP
// the problem is counted and the rest of the message kept. Neither affects any other session.
import { type Socket } from 'node:net';
import { errorMessage, isFlowaggError } from '../lib/errors.js';
import { type Template } from '../lib/ipfix/types.js';
import { type Producer } from '../lib/log/types.js';
import { type AvroFraming } from '../schemas/avro.js';
import { type Logger, sampledLogger } from '../lib/telemetry/logger.js';
import { type IngestSection, type Transport } from './config.js';
import { type Endpoint, exporterAddress } from './listeners/address.js';
import { readStream, type StreamReader } from './listeners/stream.js';
import { type ExporterSeries, exporterSeries, ingestMetrics as metrics } from './metrics.js';
import { ProduceQueue } from './produce-queue.js';
import { RecordBuffer } from './records/record-buffer.js';
import { SequenceTracker, type SequenceVerdict } from './sequence-gaps.js';
import { ExporterSession, UdpSessionTable } from './session.js';
import { type TranscodedMessage, transcodeMessage } from './transcode-message.js';

export interface PipelineDeps {
  readonly producer: Producer;
  readonly logger: Logger;
  /** Receives the templates learned over UDP (for the ipfix.templates topic). */
  readonly onUdpTemplates?: (exporter: Endpoint, templates: readonly Template[]) => void;
  /** A UDP session ended (expired or evicted). */
  readonly onUdpSessionEnd?: (session: ExporterSession) => void;
  readonly now?: () => number;
  /** How FlowRecords are framed on flows.raw (log.valueFormat); single-object by default. */
  readonly framing?: AvroFraming;
}

/** Counters for /recordmetrics and tests; Prometheus has the labelled detail. */
export interface PipelineStats {
  messages: number;
  records: number;
  written: number;
  droppedRecords: number;
  droppedMessages: number;
  decodeErrors: number;
  lostInTransit: number;
  udpSessions: number;
  /**
   * UDP sessions whose exporter sent this process a message. Sessions made only from templates another
   * replica (or this one before a restart) shared are not connections: counting them made
   * numConnectionsToCollector 1 after a restart with no exporter connected.
   */
  udpExporters: number;
  streamSessions: number;
  pausedStreams: number;
  queuedRecords: number;
  queuedBytes: number;
  throttled: boolean;
}

interface StreamEntry {
  readonly session: ExporterSession;
  readonly reader: StreamReader;
}

export class Pipeline {
  readonly queue: ProduceQueue;
  readonly udpSessions: UdpSessionTable;
  readonly #streams = new Set<StreamEntry>();
  readonly #sequences = new SequenceTracker();
  readonly #out = new RecordBuffer();
  readonly #deps: PipelineDeps;
  readonly #now: () => number;
  readonly #warn: ReturnType<typeof sampledLogger>;
  readonly #series = new WeakMap<ExporterSession, ExporterSeries>();
  readonly #streamCounts = new Map<Transport, number>();
  readonly #heardUdp = new WeakSet<ExporterSession>();
  #udpExporters = 0;
  readonly #stats = { messages: 0, records: 0, written: 0, droppedRecords: 0, droppedMessages: 0, decodeErrors: 0, lostInTransit: 0 };

  constructor(config: IngestSection, topic: string, deps: PipelineDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#warn = sampledLogger(deps.logger);
    const q = config.queue;
    this.queue = new ProduceQueue(
      deps.producer,
      { topic, maxRecords: q.maxRecords, maxBytes: q.maxBytes, batchRecords: q.batchRecords, lingerMs: q.linger, maxInFlightBatches: q.maxInFlightBatches },
      {
        sent: (n, seconds) => {
          this.#stats.written += n;
          metrics.written.inc(n);
          metrics.produceLatency.observe(seconds);
        },
        failed: (err, n, retrying) => {
          metrics.produceFailures.inc({ retried: String(retrying) });
          if (!retrying) {
            this.#stats.droppedRecords += n;
            metrics.droppedRecords.inc({ reason: 'log_rejected' }, n);
          }
          this.#warn(`produce:${retrying}`, { err: errorMessage(err), records: n, retrying }, 'sending records to the log failed');
        },
      },
    );
    // Every paused stream waits for one 'drain'.
    this.queue.setMaxListeners(0);
    this.udpSessions = new UdpSessionTable({ templateTtlMs: config.templateTtl, maxSessions: config.udp.maxSessions, now: this.#now, framing: deps.framing });
  }

  /** One UDP datagram: one IPFIX message. */
  datagram(message: Buffer, from: Endpoint): void {
    const session = this.udpSessions.get(from, (evicted) => this.#endUdpSession(evicted));
    if (!this.#heardUdp.has(session)) {
      this.#heardUdp.add(session);
      this.#udpExporters++;
    }
    this.#handle(session, message);
  }

  /** A UDP datagram larger than the configured maximum. */
  oversizedDatagram(from: Endpoint): void {
    this.#stats.droppedMessages++;
    metrics.droppedMessages.inc({ exporter: from.address, reason: 'oversized' });
  }

  /** A new TCP or TLS connection: a session of its own, read until it closes. */
  stream(socket: Socket, transport: Exclude<Transport, 'udp'>): void {
    const exporter = { address: exporterAddress(socket.remoteAddress ?? 'unknown'), port: socket.remotePort ?? 0 };
    // Stream templates live as long as the connection: no lifetime applies.
    const session = new ExporterSession(transport, exporter, { templateTtlMs: Infinity, now: this.#now, framing: this.#deps.framing });
    metrics.connections.inc({ transport });
    const queue = this.queue;
    const entry: StreamEntry = {
      session,
      reader: readStream(socket, {
        message: (buf) => this.#handle(session, buf),
        get throttled() {
          return queue.throttled;
        },
        whenDrained: (callback) => queue.once('drain', callback),
        closed: (reason) => {
          this.#streams.delete(entry);
          this.#sequences.forget(session.id);
          metrics.connectionsClosed.inc({ transport, reason: reason.kind });
          this.#countStream(transport, -1);
          if (reason.kind === 'malformed') {
            this.#warn(`closed:${exporter.address}`, { exporter: session.id, reason: reason.message }, 'closed a session that sent malformed input');
          }
        },
      }),
    };
    this.#streams.add(entry);
    this.#countStream(transport, 1);
  }

  /** Drops idle UDP sessions and expired templates; updates the gauges. */
  sweep(): void {
    for (const session of this.udpSessions.sweep()) this.#endUdpSession(session);
    const s = this.stats();
    metrics.sessions.set({ transport: 'udp' }, s.udpSessions);
    metrics.pausedSessions.set(s.pausedStreams);
    metrics.queueRecords.set(s.queuedRecords);
    metrics.queueBytes.set(s.queuedBytes);
    metrics.queueThrottled.set(s.throttled ? 1 : 0);
  }

  /** Installs a template another replica learned from a UDP exporter into this replica's session of it. */
  installUdpTemplate(exporter: Endpoint, template: Template): void {
    const session = this.udpSessions.get(exporter, (evicted) => this.#endUdpSession(evicted));
    try {
      session.templates.set(template);
      metrics.templates.inc({ source: 'topic' });
    } catch (err) {
      this.#warn(`install:${exporter.address}`, { exporter: session.id, err: errorMessage(err) }, 'cannot install a shared template');
    }
  }

  stats(): PipelineStats {
    const q = this.queue.stats();
    let paused = 0;
    for (const e of this.#streams) if (e.reader.paused) paused++;
    return {
      ...this.#stats,
      udpSessions: this.udpSessions.size,
      udpExporters: this.#udpExporters,
      streamSessions: this.#streams.size,
      pausedStreams: paused,
      queuedRecords: q.queuedRecords,
      queuedBytes: q.queuedBytes,
      throttled: q.throttled,
    };
  }

  /** Counts records given up at shutdown. */
  abandoned(n: number): void {
    this.#stats.droppedRecords += n;
    metrics.droppedRecords.inc({ reason: 'shutdown' }, n);
  }

  /** Handles one message; returns why the session must close, if it must. */
  #handle(session: ExporterSession, buf: Buffer): string | undefined {
    const series = this.#seriesOf(session);
    const exporter = session.exporter.address;
    this.#stats.messages++;
    series.messages.inc();
    let t: TranscodedMessage;
    try {
      t = transcodeMessage(session, buf, this.#out, this.#now());
    } catch (err) {
      // Not only IpfixErrors: whatever the input makes the decoder do, it must not take the service down.
      const reason = isFlowaggError(err) ? err.code : 'internal';
      this.#stats.decodeErrors++;
      this.#stats.droppedMessages++;
      metrics.decodeErrors.inc({ exporter, reason });
      metrics.droppedMessages.inc({ exporter, reason: 'malformed' });
      const detail = isFlowaggError(err) ? { err: err.message } : { err: errorMessage(err), stack: (err as Error).stack };
      this.#warn(`decode:${exporter}:${reason}`, { exporter: session.id, ...detail }, 'dropped a malformed IPFIX message');
      return errorMessage(err);
    }
    for (const err of t.errors) {
      this.#stats.decodeErrors++;
      metrics.decodeErrors.inc({ exporter, reason: err.code });
      this.#warn(`decode:${exporter}:${err.code}`, { exporter: session.id, err: err.message, ...err.context }, 'skipped part of an IPFIX message');
    }
    if (t.templates.length > 0) {
      metrics.templates.inc({ source: 'exporter' }, t.templates.length);
      if (session.transport === 'udp') this.#deps.onUdpTemplates?.(session.exporter, t.templates);
    }
    if (t.records.length > 0 || t.optionsRecords > 0 || t.templates.length > 0) {
      if (session.transport === 'udp') this.udpSessions.touch(session);
      else session.lastActivity = this.#now();
    }
    this.#account(session, t);
    if (t.records.length > 0) {
      if (session.transport === 'udp' && this.queue.throttled) {
        this.#stats.droppedRecords += t.records.length;
        this.#stats.droppedMessages++;
        metrics.droppedRecords.inc({ reason: 'queue_full' }, t.records.length);
        metrics.droppedMessages.inc({ exporter, reason: 'queue_full' });
      } else {
        this.#stats.records += t.records.length;
        series.records.inc(t.records.length);
        this.queue.enqueue(t.records);
      }
    }
    if (t.optionsRecords > 0) metrics.optionsRecords.inc({ exporter }, t.optionsRecords);
    return t.errors.length > 0 && session.transport !== 'udp' ? t.errors[0]!.message : undefined;
  }

  #account(session: ExporterSession, t: TranscodedMessage): void {
    const known = t.errors.length === 0 ? t.records.length : undefined;
    const domain = t.header.observationDomainId;
    const verdict: SequenceVerdict = this.#sequences.observe(session.id, domain, t.header.sequenceNumber, known, t.optionsRecords);
    if (verdict.kind === 'in-order' || verdict.kind === 'start') return;
    const labels = { exporter: session.exporter.address, domain: String(domain) };
    if (verdict.kind === 'gap') {
      this.#stats.lostInTransit += verdict.lost;
      metrics.sequenceLost.inc(labels, verdict.lost);
    } else if (verdict.kind === 'late') {
      metrics.sequenceLate.inc(labels, verdict.records);
    } else {
      metrics.sequenceResets.inc(labels);
    }
  }

  #seriesOf(session: ExporterSession): ExporterSeries {
    let s = this.#series.get(session);
    if (s === undefined) {
      s = exporterSeries(session.exporter.address, session.transport);
      this.#series.set(session, s);
    }
    return s;
  }

  #endUdpSession(session: ExporterSession): void {
    if (this.#heardUdp.delete(session)) this.#udpExporters--;
    this.#sequences.forget(session.id);
    this.#deps.onUdpSessionEnd?.(session);
  }

  #countStream(transport: Transport, delta: number): void {
    const n = (this.#streamCounts.get(transport) ?? 0) + delta;
    this.#streamCounts.set(transport, n);
    metrics.sessions.set({ transport }, n);
  }
}
