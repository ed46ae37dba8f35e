// The gRPC Agent (antrea-grpc.md §4): a connection of its own per Node with the client certificate, the
// server verified under the name Agents use, one endless FlowExportService.Export stream carrying one Flow
// per ExportRequest. When the stream or the connection fails, the Agent closes the connection and connects
// again on a later tick; so does this one, after a backoff.
//
// The client speaks gRPC on node:http2 itself (a POST stream of length-prefixed messages, the status in
// the trailers) because grpc-js cannot bind a local address: with it every Node came from the host's one
// address, and a collector's per-address limit (ingest.grpc.maxConnectionsPerPeer) refused all but a few
// of a large cluster's Nodes. Here each Node binds its own, as its IPFIX transports do.
import { type ClientHttp2Session, type ClientHttp2Stream, connect as connectHttp2, constants } from 'node:http2';
import { isIPv6 } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { AgentRecord } from './antrea/workload.js';
import { EXPORT_PATH } from '../schemas/antrea-proto.js';
import { exportRequest } from './flow-message.js';
import { type Link, LinkBase, NOT_CONNECTED, RECONNECT_BACKOFF, type WriteDone } from './link.js';
import type { Target } from './tcp.js';
import { Backoff } from '../lib/retry.js';
import type { TlsMaterial } from './tls.js';

const { HTTP2_HEADER_METHOD, HTTP2_HEADER_PATH, HTTP2_HEADER_CONTENT_TYPE, HTTP2_HEADER_TE } = constants;

/** A gRPC message on the wire: not compressed, its length in 4 bytes big-endian, then the message. */
function framed(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/** Why a call ended, from its grpc-status and grpc-message (in the trailers, or a trailers-only answer). */
function callEnd(headers: Readonly<Record<string, unknown>>): string {
  const status = String(headers['grpc-status'] ?? 'none');
  if (status === '0') return 'the collector ended the stream';
  const message = headers['grpc-message'];
  return `status ${status}${typeof message === 'string' ? `: ${decodeURIComponent(message)}` : ''}`;
}

export class GrpcLink extends LinkBase implements Link {
  readonly #url: string;
  #session: ClientHttp2Session | undefined;
  #call: ClientHttp2Stream | undefined;
  #ended: Promise<void> | undefined;
  readonly #backoff = new Backoff(RECONNECT_BACKOFF);
  #retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly target: Target,
    private readonly material: TlsMaterial,
    readonly sourceAddress: string | undefined,
    private readonly connectTimeoutMs: number,
  ) {
    super();
    this.#url = `https://${isIPv6(target.address) ? `[${target.address}]` : target.address}:${target.port}`;
  }

  get ready(): boolean {
    return this.state === 'up' && this.#call?.writableNeedDrain === false;
  }

  start(): void {
    this.state = 'connecting';
    const { target, material, sourceAddress } = this;
    const session = connectHttp2(this.#url, {
      createConnection: () => connectTls({
        host: target.address, port: target.port, servername: material.serverName, ca: material.ca, cert: material.cert, key: material.key,
        minVersion: 'TLSv1.2', ALPNProtocols: ['h2'], ...(sourceAddress !== undefined && { localAddress: sourceAddress }),
      }),
    });
    this.#session = session;
    const timer = setTimeout(() => session.destroy(new Error(`no connection within ${this.connectTimeoutMs} ms`)), this.connectTimeoutMs);
    session.once('connect', () => {
      clearTimeout(timer);
      if (this.state === 'closed') session.close();
      else this.#open(session);
    });
    session.on('error', (err) => {
      clearTimeout(timer);
      this.#down(session, err.message);
    });
    session.once('close', () => {
      clearTimeout(timer);
      this.#down(session, 'the connection closed');
    });
  }

  #open(session: ClientHttp2Session): void {
    const call = session.request(
      { [HTTP2_HEADER_METHOD]: 'POST', [HTTP2_HEADER_PATH]: EXPORT_PATH, [HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc', [HTTP2_HEADER_TE]: 'trailers' },
      { endStream: false },
    );
    let ended!: () => void;
    this.#ended = new Promise((resolve) => (ended = resolve));
    let reason = 'the collector ended the stream';
    call.on('response', (headers) => {
      if (headers['grpc-status'] !== undefined) reason = callEnd(headers);
    });
    call.on('trailers', (trailers) => (reason = callEnd(trailers)));
    call.on('error', (err) => (reason = err.message));
    // The answer (an empty ExportResponse) is read and dropped, so that the stream can end.
    call.resume();
    call.once('close', () => {
      ended();
      this.failPending();
      if (this.state !== 'closed') this.#down(session, reason);
    });
    this.#call = call;
    this.state = 'up';
    this.connects++;
    this.#backoff.reset();
  }

  #down(session: ClientHttp2Session, reason: string): void {
    if (session !== this.#session || this.state === 'closed' || this.state === 'down') return;
    this.lastError = reason;
    session.destroy();
    this.#call = undefined;
    this.failPending();
    this.state = 'down';
    this.#retry = setTimeout(() => this.start(), this.#backoff.next());
  }

  send(records: readonly AgentRecord[], done: WriteDone): void {
    const call = this.#call;
    if (this.state !== 'up' || call === undefined) {
      done(records, NOT_CONNECTED());
      return;
    }
    const now = Date.now();
    for (const r of records) {
      const message = framed(exportRequest(r, now));
      call.write(message, this.written(message, [r], done));
    }
  }

  async close(timeoutMs: number): Promise<void> {
    const wasUp = this.state === 'up';
    this.state = 'closed';
    clearTimeout(this.#retry);
    if (wasUp && this.#call !== undefined) {
      // Half-close: the collector answers with the empty ExportResponse once it has every Flow.
      this.#call.end();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.#ended, new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
      clearTimeout(timer);
    }
    this.failPending();
    this.#session?.destroy();
  }
}
