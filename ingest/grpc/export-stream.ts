// One FlowExportService.Export call: an Agent's client stream of ExportRequests, each of whose Flows becomes a
// FlowRecord on flows.raw through the shared produce queue, as Antrea's collector (reference §3.4) does:
//
// - the peer's address (no port, no brackets) is the record's exporter, whatever ipfix.exporter_ip says;
// - while the queue is throttled the call is paused: grpc-js stops reading the HTTP/2 stream, its flow-control
//   window fills and the Agent's sends block; nothing is dropped;
// - a message that is not a valid ExportRequest ends this stream with INVALID_ARGUMENT, after the flows before
//   the bad one were queued; other streams go on;
// - when the Agent half-closes, the empty ExportResponse is sent (status OK).
import { type ServerReadableStream, type sendUnaryData, status } from '@grpc/grpc-js';
import { errorMessage, isFlowaggError } from '../../lib/errors.js';
import { exporterAddress } from '../../lib/listeners/address.js';
import { ingestMetrics } from '../metrics.js';
import type { ProduceQueue } from '../produce-queue.js';
import type { RunWriter } from '../records/run-writer.js';
import { FlowFields, forEachFlow, readFlow } from '../../schemas/antrea-flow-fields.js';
import type { FlowTranscoder, GrpcOrigin } from './flow-transcode.js';
import { grpcMetrics } from './metrics.js';

export interface ExportDeps {
  readonly queue: ProduceQueue;
  readonly transcoder: FlowTranscoder;
  readonly writer: RunWriter;
  /**
   * Flows were added to `writer`. The collector takes them and queues them once per turn of the event loop,
   * for all its streams: grpc-js hands over one message at a time, and a take and a send of its own for each
   * one-Flow message cost more than the Flow's transcoding.
   */
  written(): void;
  readonly now: () => number;
  /** Counts the stream against its peer's limit; false when the peer is at it. */
  admit(address: string): boolean;
  release(address: string): void;
  readonly maxStreamsPerPeer: number;
  /**
   * The stream's counters of messages and records, which the collector adds to its exporter's Prometheus
   * series every second and when the stream ends (release): one labelled increment per message would cost
   * as much as decoding the flow it carries.
   */
  counters(address: string): StreamCounters;
  /** The stream's first valid message: its peer counts as known, and may get a label of its own. */
  validated(address: string): void;
  /** The exporter label of a peer's series: its address, or _overflow (lib/telemetry/capped-label.ts). */
  label(address: string): string;
  /** The stream ended: its counters are flushed and forgotten. */
  ended(counters: StreamCounters): void;
  /** Counters for /recordmetrics. */
  readonly stats: { records: number; streams: number; malformed: number };
  warn(key: string, fields: Record<string, unknown>, msg: string): void;
}

export interface StreamCounters {
  readonly address: string;
  messages: number;
  records: number;
}

const EMPTY_RESPONSE = Buffer.alloc(0);
const fields = new FlowFields();

/** The peer of a call as Antrea reads it: the address before the last ':', without brackets, IPv4 unmapped. */
export function peerOf(peer: string): GrpcOrigin {
  const colon = peer.lastIndexOf(':');
  const host = colon < 0 ? peer : peer.slice(0, colon);
  const port = colon < 0 ? 0 : Number(peer.slice(colon + 1));
  return { exporterAddress: exporterAddress(host.replace(/^\[|\]$/g, '')), exporterPort: Number.isInteger(port) ? port : 0 };
}

export function handleExport(call: ServerReadableStream<Buffer, Buffer>, callback: sendUnaryData<Buffer>, deps: ExportDeps): void {
  const origin = peerOf(call.getPeer());
  const address = origin.exporterAddress;
  if (!deps.admit(address)) {
    grpcMetrics.refused.inc({ reason: 'peer_streams' });
    grpcMetrics.streamsEnded.inc({ code: 'RESOURCE_EXHAUSTED' });
    callback({ code: status.RESOURCE_EXHAUSTED, details: `more than ${deps.maxStreamsPerPeer} concurrent Export streams from ${address}` });
    return;
  }
  const originBytes = Buffer.from(address, 'latin1');
  const counters = deps.counters(address);
  const { queue, stats } = deps;
  stats.streams++;
  ingestMetrics.sessions.inc({ transport: 'grpc' });
  let done = false;
  let paused = false;
  let valid = false;
  boundBuffering(call);
  const finish = (code: keyof typeof status) => {
    if (done) return false;
    done = true;
    stats.streams--;
    ingestMetrics.sessions.dec({ transport: 'grpc' });
    grpcMetrics.streamsEnded.inc({ code });
    deps.ended(counters);
    deps.release(address);
    return true;
  };
  const resume = () => {
    paused = false;
    if (!done) call.resume();
  };

  call.on('data', (message: Buffer) => {
    if (done) return;
    const receiveTime = deps.now();
    const writer = deps.writer;
    let failure: unknown;
    const before = writer.records;
    try {
      forEachFlow(message, (start, end) => {
        deps.transcoder.write(readFlow(message, start, end, fields), end - start, origin, originBytes, receiveTime, writer.out);
        writer.added();
      });
    } catch (err) {
      failure = err;
    }
    if (!valid && failure === undefined) {
      valid = true;
      deps.validated(address);
    }
    counters.messages++;
    const flows = writer.records - before;
    if (flows > 0) {
      stats.records += flows;
      counters.records += flows;
      deps.written();
    }
    if (failure !== undefined) {
      const reason = isFlowaggError(failure) ? failure.code : 'internal';
      stats.malformed++;
      ingestMetrics.decodeErrors.inc({ exporter: deps.label(address), reason });
      deps.warn(`grpc:${address}:${reason}`, { exporter: `${address}:${origin.exporterPort}`, err: errorMessage(failure) }, 'ended an Export stream that sent a malformed message');
      if (finish('INVALID_ARGUMENT')) callback({ code: status.INVALID_ARGUMENT, details: errorMessage(failure) });
      return;
    }
    if (queue.throttled && !paused) {
      paused = true;
      call.pause();
      queue.once('drain', resume);
    }
  });
  call.on('end', () => {
    if (finish('OK')) callback(null, EMPTY_RESPONSE);
  });
  call.on('cancelled', () => finish('CANCELLED'));
  call.on('error', () => finish('UNKNOWN'));
}

/**
 * A paused call's Readable keeps asking grpc-js for messages until it holds its high-water mark of them (16 by
 * default, each up to ingest.grpc.maxMessageBytes); at 1 it holds one, and grpc-js stops reading the HTTP/2
 * stream, so that its flow-control window holds back the rest. The mark is not settable through the API.
 */
function boundBuffering(call: ServerReadableStream<Buffer, Buffer>): void {
  const state = (call as unknown as { _readableState?: { highWaterMark: number } })._readableState;
  if (state !== undefined) state.highWaterMark = 1;
}
