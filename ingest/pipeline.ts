// The collector's data path, between the listeners and the log: a message (IPFIX, or a NetFlow v9 or v5
// packet on the NetFlow port) arrives on a session, is
// transcoded into FlowRecords (transcode-message.ts), accounted (sequence gaps, errors, per-exporter
// counters) and queued for flows.raw (produce-queue.ts). Backpressure is decided here: while the queue is
// throttled, stream sessions pause (listeners/stream.ts) and UDP datagrams are still decoded, so that
// their templates are learned, but their records are dropped and counted.
//
// Malformed input: over TCP/TLS any problem in a message closes the session (go-ipfix does the same; the
// exporter reconnects and resends its templates), after the message's good records were queued. Over UDP
// the problem is counted and the rest of the message kept. Neither affects any other session.
//
// Every input is bounded (docs/ingest.md, "Limits"): templates per session, per exporter address and in
// total (TemplatePool), compiled transcoders (TranscoderCache, shared by all sessions), sequence streams,
// exporters with series of their own, and the time a stream may take to deliver a message.
import type { Socket } from 'node:net';
import { errorMessage, isFlowaggError } from '../lib/errors.js';
import { MESSAGE_HEADER_LENGTH } from '../lib/ipfix/message-header.js';
import { cutAtTemplateBudget } from '../lib/ipfix/template-parts.js';
import { type EvictionReason, TemplatePool } from '../lib/ipfix/template-pool.js';
import type { Template } from '../lib/ipfix/types.js';
import type { Producer } from '../lib/log/types.js';
import type { AvroFraming } from '../schemas/avro.js';
import { CappedLabel, OVERFLOW_LABEL } from '../lib/telemetry/capped-label.js';
import { type Logger, sampledLogger } from '../lib/telemetry/logger.js';
import type { IngestSection, Transport } from './config.js';
import { type Endpoint, exporterAddress } from '../lib/listeners/address.js';
import { SlicedQueue } from './listeners/sliced-queue.js';
import { type MessageOutcome, readStream, type StreamReader } from './listeners/stream.js';
import { type ExporterSeries, exporterSeries, ingestMetrics as metrics } from './metrics.js';
import { ProduceQueue } from './produce-queue.js';
import type { RunWriter } from './records/run-writer.js';
import { TranscoderCache } from './records/transcoder-cache.js';
import { SequenceTracker, type SequenceVerdict } from './sequence-gaps.js';
import { ExporterSession, type SessionOptions, type SessionProtocol, UdpSessionTable } from './session.js';
import { IPFIX_VERSION } from '../lib/ipfix/message-header.js';
import { NETFLOW_V5_VERSION, NETFLOW_V9_VERSION } from '../lib/ipfix/netflow-header.js';
import { packetVersion } from '../lib/ipfix/netflow-message.js';
import { IPFIX_ERR } from '../lib/ipfix/errors.js';
import { type TranscodedMessage, transcodeMessage } from './transcode-message.js';

export interface PipelineDeps {
  readonly producer: Producer;
  readonly logger: Logger;
  /** Receives the templates learned over UDP (for the ipfix.templates topic). */
  readonly onUdpTemplates?: (exporter: Endpoint, templates: readonly Template[]) => void;
  /** A UDP session ended (expired or evicted). */
  readonly onUdpSessionEnd?: (session: ExporterSession) => void;
  /** A TCP/TLS source sent valid IPFIX: it may use the connection slots kept for known exporters. */
  readonly onValidStream?: (address: string) => void;
  /**
   * Whether this replica judges UDP sequence numbers: only when it receives every message of its UDP
   * exporters (one replica). Behind a load balancer each replica sees part of a stream, and the loss is
   * computed where all records meet (sequence-audit.ts). Default true.
   */
  readonly udpSequenceAccounting?: boolean;
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
  /** Sets skipped whole, and their bytes (their records cannot be counted). */
  skippedSets: number;
  skippedBytes: number;
  lostInTransit: number;
  /** NetFlow v9 packets lost in transit (v9 numbers packets). */
  lostPacketsInTransit: number;
  templates: number;
  transcoderLayouts: number;
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

/** Per session: its series, and whether it has delivered valid IPFIX yet. */
interface SessionState {
  series: ExporterSeries;
  valid: boolean;
}

/** The longest stretch of input handling before the event loop turns (one message may overrun it). */
export const WORK_SLICE_MS = 10;
/**
 * Template records learned in one piece of work: about a millisecond of learning on optimised code (512
 * one-field templates); a message holding more is handled in parts, the event loop turning between them.
 */
const TEMPLATE_BYTES_PER_PART = 4096;

export class Pipeline {
  readonly queue: ProduceQueue;
  readonly udpSessions: UdpSessionTable;
  readonly #streams = new Set<StreamEntry>();
  /** Datagrams waiting to be handled, in event-loop slices. */
  readonly #datagrams: SlicedQueue<{ message: Buffer; from: Endpoint; port: 'ipfix' | 'netflow' }>;
  readonly #sequences: SequenceTracker;
  readonly #writer: RunWriter;
  readonly #deps: PipelineDeps;
  readonly #config: IngestSection;
  readonly #now: () => number;
  readonly #warn: ReturnType<typeof sampledLogger>;
  readonly #pool: TemplatePool;
  readonly #transcoders: TranscoderCache;
  /** Exporter addresses with series of their own (ingest.metrics.maxExporters), shared with the gRPC collector. */
  readonly exporterLabels: CappedLabel;
  readonly #sessionOptions: SessionOptions;
  readonly #state = new WeakMap<ExporterSession, SessionState>();
  readonly #streamCounts = new Map<Transport, number>();
  readonly #stats = { messages: 0, records: 0, written: 0, droppedRecords: 0, droppedMessages: 0, decodeErrors: 0, skippedSets: 0, skippedBytes: 0, lostInTransit: 0, lostPacketsInTransit: 0 };
  #sequenceEvictions = 0;
  readonly #heardUdp = new WeakSet<ExporterSession>();
  /** The rests of messages handled in parts (already counted as messages). */
  readonly #parts = new WeakSet<Buffer>();
  #udpExporters = 0;
  /** Template evictions not yet added to the metric (a flood evicts thousands per message: one inc per message). */
  readonly #evictions: Record<EvictionReason, number> = { session: 0, exporter: 0, total: 0 };

  constructor(config: IngestSection, topic: string, deps: PipelineDeps) {
    this.#deps = deps;
    this.#config = config;
    this.#now = deps.now ?? Date.now;
    this.#warn = sampledLogger(deps.logger);
    const t = config.templates;
    this.#pool = new TemplatePool({ perGroup: t.maxPerExporter, total: t.maxTotal, totalFields: t.maxTotalFields });
    this.#transcoders = new TranscoderCache({ maxLayouts: t.maxLayouts, compileAfterRecords: t.compileAfterRecords, onEvict: () => metrics.transcoderEvictions.inc(), onCompile: () => metrics.transcoderCompilations.inc(),
      ...(deps.framing && { framing: deps.framing }),
    });
    this.exporterLabels = new CappedLabel(config.metrics.maxExporters);
    this.#sequences = new SequenceTracker({ maxStreams: config.sequence.maxStreams });
    this.#sessionOptions = {
      templateTtlMs: config.templateTtl, now: this.#now, maxTemplates: t.maxPerSession, pool: this.#pool,
      onEvict: (_template, reason) => this.#evictions[reason]++,
    };
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
    this.#writer = this.queue.runWriter();
    this.#datagrams = new SlicedQueue({ maxBytes: config.udp.backlogBytes, sliceMs: WORK_SLICE_MS }, ({ message, from, port }) => {
      const protocol = port === 'ipfix' ? 'ipfix' : netflowPortProtocol(message);
      if (protocol === undefined) {
        this.#unknownVersion(message, from);
        return;
      }
      const session = this.udpSessions.get(from, (evicted) => this.#endUdpSession(evicted), protocol);
      if (!this.#heardUdp.has(session)) {
        this.#heardUdp.add(session);
        this.#udpExporters++;
      }
      const outcome = this.#handle(session, message);
      return outcome.kind === 'partly' ? { message: outcome.rest, from, port } : undefined;
    });
    this.udpSessions = new UdpSessionTable({
      templateTtlMs: config.templateTtl, maxSessions: config.udp.maxSessions, now: this.#now,
      create: (exporter, protocol) => new ExporterSession('udp', exporter, this.#sessionOptions, protocol),
    });
  }

  /**
   * One UDP datagram: one IPFIX message (the IPFIX port), or on the NetFlow port one NetFlow v9 or v5 packet
   * (IPFIX is taken there too, as many exporters send it to 2055); handled in a slice of the event loop soon.
   */
  datagram(message: Buffer, from: Endpoint, port: 'ipfix' | 'netflow' = 'ipfix'): void {
    if (this.#datagrams.push({ message, from, port }, message.length)) return;
    this.#stats.droppedMessages++;
    metrics.droppedMessages.inc({ exporter: this.exporterLabels.of(from.address, false), reason: 'overload' });
  }

  /** A datagram on the NetFlow port that is neither NetFlow v5, v9 nor IPFIX: dropped and counted, no session made. */
  #unknownVersion(message: Buffer, from: Endpoint): void {
    const label = this.exporterLabels.of(from.address, false);
    this.#stats.decodeErrors++;
    this.#stats.droppedMessages++;
    metrics.decodeErrors.inc({ exporter: label, reason: IPFIX_ERR.BAD_VERSION });
    metrics.droppedMessages.inc({ exporter: label, reason: 'malformed' });
    this.#warn(`version:${from.address}`, { exporter: from.address, version: packetVersion(message) }, 'dropped a datagram on the NetFlow port that is neither NetFlow v5, v9 nor IPFIX');
  }

  /** A UDP datagram larger than the configured maximum. */
  oversizedDatagram(from: Endpoint): void {
    this.#stats.droppedMessages++;
    metrics.droppedMessages.inc({ exporter: this.exporterLabels.of(from.address, false), reason: 'oversized' });
  }

  /** A new TCP or TLS connection: a session of its own, read until it closes. */
  stream(socket: Socket, transport: Exclude<Transport, 'udp'>): void {
    const exporter = { address: exporterAddress(socket.remoteAddress ?? 'unknown'), port: socket.remotePort ?? 0 };
    // Stream templates live as long as the connection: no lifetime applies.
    const session = new ExporterSession(transport, exporter, { ...this.#sessionOptions, templateTtlMs: Infinity });
    metrics.connections.inc({ transport });
    const queue = this.queue;
    const tcp = this.#config.tcp;
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
          session.close();
          metrics.connectionsClosed.inc({ transport, reason: reason.kind === 'timeout' ? reason.deadline : reason.kind });
          this.#countStream(transport, -1);
          if (reason.kind === 'malformed' || reason.kind === 'timeout') {
            this.#warn(`closed:${exporter.address}:${reason.kind}`, { exporter: session.id, reason: reason.message }, `closed a session: ${reason.kind === 'timeout' ? 'too slow' : 'malformed input'}`);
          }
        },
      }, {
        timeouts: { firstMessageMs: tcp.firstMessageTimeout, partialMessageMs: tcp.partialMessageTimeout, idleMs: tcp.idleTimeout },
        sliceMs: WORK_SLICE_MS,
        now: this.#now,
      }),
    };
    this.#streams.add(entry);
    this.#countStream(transport, 1);
  }

  /** Closes the stream connections that passed a time limit (ingest.tcp.*Timeout). */
  checkStreams(): void {
    const now = this.#now();
    for (const e of [...this.#streams]) e.reader.checkDeadlines(now);
  }

  /** Drops idle UDP sessions and expired templates; updates the gauges. */
  sweep(): void {
    for (const session of this.udpSessions.sweep()) this.#endUdpSession(session);
    const s = this.stats();
    metrics.templatesHeld.set(s.templates);
    metrics.transcoderLayouts.set(s.transcoderLayouts);
    metrics.sessions.set({ transport: 'udp' }, s.udpSessions);
    metrics.pausedSessions.set(s.pausedStreams);
    metrics.queueRecords.set(s.queuedRecords);
    metrics.queueBytes.set(s.queuedBytes);
    metrics.queueThrottled.set(s.throttled ? 1 : 0);
  }

  /** Installs a template another replica learned from a UDP exporter into this replica's session of it. */
  installUdpTemplate(exporter: Endpoint, template: Template): void {
    const session = this.udpSessions.get(exporter, (evicted) => this.#endUdpSession(evicted));
    session.templates.set(template);
    metrics.templates.inc({ source: 'topic' });
    this.#countEvictions();
  }

  stats(): PipelineStats {
    const q = this.queue.stats();
    let paused = 0;
    for (const e of this.#streams) if (e.reader.paused) paused++;
    return {
      ...this.#stats,
      templates: this.#pool.size,
      transcoderLayouts: this.#transcoders.size,
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

  /**
   * Handles one message, or its first part when its template sets are longer than a turn of the event loop
   * should take (template-parts.ts): the rest comes back, to be handled next like a message (it is counted
   * as one message with its first part).
   */
  #handle(session: ExporterSession, message: Buffer): MessageOutcome {
    const state = this.#stateOf(session);
    const exporter = session.exporter.address;
    const label = this.exporterLabels.of(exporter, false);
    if (!this.#parts.delete(message)) {
      this.#stats.messages++;
      state.series.messages.inc();
    }
    // NetFlow v9 is left whole: its header counts FlowSets and its sequence numbers count packets, so a cut
    // would need a header of its own; a v9 packet comes over UDP only, where the queue turns between packets.
    const { first: buf, rest } = session.protocol === 'ipfix' && message.length >= MESSAGE_HEADER_LENGTH ? cutAtTemplateBudget(message, TEMPLATE_BYTES_PER_PART) : { first: message, rest: undefined };
    let t: TranscodedMessage;
    try {
      t = transcodeMessage(session, buf, this.#writer, this.#now(), this.#transcoders);
    } catch (err) {
      // Not only IpfixErrors: whatever the input makes the decoder do, it must not take the service down.
      const reason = isFlowaggError(err) ? err.code : 'internal';
      this.#stats.decodeErrors++;
      this.#stats.droppedMessages++;
      metrics.decodeErrors.inc({ exporter: label, reason });
      metrics.droppedMessages.inc({ exporter: label, reason: 'malformed' });
      const detail = isFlowaggError(err) ? { err: err.message } : { err: errorMessage(err), stack: (err as Error).stack };
      this.#warn(`decode:${exporter}:${reason}`, { exporter: session.id, ...detail }, `dropped a malformed ${session.protocol === 'ipfix' ? 'IPFIX message' : 'NetFlow packet'}`);
      return { kind: 'refused', reason: errorMessage(err) };
    }
    for (const err of t.errors) {
      this.#stats.decodeErrors++;
      metrics.decodeErrors.inc({ exporter: label, reason: err.code });
      this.#warn(`decode:${exporter}:${err.code}`, { exporter: session.id, err: err.message, ...err.context }, `skipped part of ${session.protocol === 'ipfix' ? 'an IPFIX message' : 'a NetFlow packet'}`);
    }
    for (const skipped of t.skipped) {
      this.#stats.skippedSets++;
      this.#stats.skippedBytes += skipped.bytes;
      metrics.skippedSets.inc({ exporter: label, reason: skipped.reason });
      metrics.skippedBytes.inc({ exporter: label, reason: skipped.reason }, skipped.bytes);
    }
    if (t.templates.length > 0) {
      metrics.templates.inc({ source: 'exporter' }, t.templates.length);
      // ipfix.templates holds IPFIX templates only: a NetFlow exporter's are learned by the replica it reaches.
      if (session.transport === 'udp' && session.protocol === 'ipfix') this.#deps.onUdpTemplates?.(session.exporter, t.templates);
    }
    const delivered = t.records > 0 || t.optionsRecords > 0 || t.templates.length > 0;
    if (delivered) {
      if (session.transport === 'udp') this.udpSessions.touch(session);
      else session.lastActivity = this.#now();
      if (!state.valid && t.errors.length === 0) this.#validated(session, state);
    }
    this.#account(session, t, state.series.label);
    if (t.records > 0) {
      if (session.transport === 'udp' && this.queue.throttled) {
        this.#stats.droppedRecords += t.records;
        this.#stats.droppedMessages++;
        metrics.droppedRecords.inc({ reason: 'queue_full' }, t.records);
        metrics.droppedMessages.inc({ exporter: label, reason: 'queue_full' });
      } else {
        this.#stats.records += t.records;
        state.series.records.inc(t.records);
        this.queue.enqueueRuns(t);
      }
    }
    if (t.optionsRecords > 0) metrics.optionsRecords.inc({ exporter: label }, t.optionsRecords);
    this.#countEvictions();
    if (t.errors.length > 0 && session.transport !== 'udp') return { kind: 'refused', reason: t.errors[0]!.message };
    if (rest === undefined) return { kind: 'handled' };
    // The rest's data records follow the first part's in the exporter's count (RFC 7011 §3.1).
    rest.writeUInt32BE((t.header.sequenceNumber + t.records + t.optionsRecords) >>> 0, 8);
    this.#parts.add(rest);
    return { kind: 'partly', rest };
  }

  /** A session's first valid message: its address may get series of its own, and, for streams, reserved slots. */
  #validated(session: ExporterSession, state: SessionState): void {
    state.valid = true;
    if (state.series.label === OVERFLOW_LABEL) {
      const label = this.exporterLabels.of(session.exporter.address);
      if (label !== OVERFLOW_LABEL) state.series = exporterSeries(label, session.context.origin.transport);
    }
    if (session.transport !== 'udp') this.#deps.onValidStream?.(session.exporter.address);
  }

  /**
   * Sequence accounting, for the messages that carry data sets (a message without any tells nothing about
   * records, and would let anyone open a stream per observation domain), and for UDP only where this
   * replica sees whole streams.
   */
  #account(session: ExporterSession, t: TranscodedMessage, exporter: string): void {
    if (session.transport === 'udp' && this.#deps.udpSequenceAccounting === false) return;
    // NetFlow v9 numbers packets, template-only ones included (RFC 3954 §5.1): each packet that delivered
    // something counts one. IPFIX and v5 number records.
    const packets = session.protocol === 'netflow_v9';
    if (packets ? !t.hasData && t.templates.length === 0 : !t.hasData) return;
    const known = packets ? 1 : t.errors.length === 0 ? t.records : undefined;
    const verdict: SequenceVerdict = this.#sequences.observe(session.id, t.header.observationDomainId, t.header.sequenceNumber, known, packets ? 0 : t.optionsRecords);
    if (this.#sequences.evicted > this.#sequenceEvictions) {
      metrics.sequenceStreamsEvicted.inc(this.#sequences.evicted - this.#sequenceEvictions);
      this.#sequenceEvictions = this.#sequences.evicted;
    }
    if (verdict.kind === 'in-order' || verdict.kind === 'start') return;
    const labels = { exporter, transport: session.context.origin.transport };
    if (verdict.kind === 'gap' && packets) {
      this.#stats.lostPacketsInTransit += verdict.lost;
      metrics.sequenceLostPackets.inc(labels, verdict.lost);
    } else if (verdict.kind === 'gap') {
      this.#stats.lostInTransit += verdict.lost;
      metrics.sequenceLost.inc(labels, verdict.lost);
    } else if (verdict.kind === 'late') {
      metrics.sequenceLate.inc(labels, verdict.records);
    } else {
      metrics.sequenceResets.inc(labels);
    }
  }

  #countEvictions(): void {
    for (const reason of ['session', 'exporter', 'total'] as const) {
      if (this.#evictions[reason] === 0) continue;
      metrics.templatesEvicted.inc({ reason }, this.#evictions[reason]);
      this.#evictions[reason] = 0;
    }
  }

  #stateOf(session: ExporterSession): SessionState {
    let s = this.#state.get(session);
    if (s === undefined) {
      s = { series: exporterSeries(this.exporterLabels.of(session.exporter.address, false), session.context.origin.transport), valid: false };
      this.#state.set(session, s);
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

/** What a datagram on the NetFlow port is, by its version field; undefined for any other version. */
function netflowPortProtocol(message: Buffer): SessionProtocol | undefined {
  switch (packetVersion(message)) {
    case NETFLOW_V9_VERSION: return 'netflow_v9';
    case NETFLOW_V5_VERSION: return 'netflow_v5';
    case IPFIX_VERSION: return 'ipfix';
    default: return undefined;
  }
}
