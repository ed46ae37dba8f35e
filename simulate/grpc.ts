// The gRPC Agent (antrea-grpc.md §4): a channel of its own per Node with the client certificate, the
// server verified under the name Agents use, one endless FlowExportService.Export stream carrying one Flow
// per ExportRequest. When the stream or the connection fails, the Agent closes the channel and connects
// again on a later tick; so does this one, after a backoff. (grpc-js cannot bind a local address, so every
// Node's connection comes from the host's address: the collector tells the Nodes apart by their
// observation domain.)
import * as grpc from '@grpc/grpc-js';
import { isIPv6 } from 'node:net';
import { type AgentRecord } from './antrea/workload.js';
import { EXPORT_PATH } from '../schemas/antrea-proto.js';
import { exportRequest } from './flow-message.js';
import { type Link, LinkBase, NOT_CONNECTED, RECONNECT_BACKOFF, type WriteDone } from './link.js';
import { type Target } from './tcp.js';
import { Backoff } from '../lib/retry.js';
import { type TlsMaterial } from './tls.js';

const asBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
const identity = (b: Buffer) => b;

export class GrpcLink extends LinkBase implements Link {
  readonly sourceAddress = undefined;
  readonly #address: string;
  readonly #credentials: grpc.ChannelCredentials;
  readonly #serverName: string;
  readonly #timeoutMs: number;
  #client: grpc.Client | undefined;
  #call: grpc.ClientWritableStream<Buffer> | undefined;
  #ended: Promise<void> | undefined;
  readonly #backoff = new Backoff(RECONNECT_BACKOFF);
  #retry: NodeJS.Timeout | undefined;

  constructor(target: Target, material: TlsMaterial, connectTimeoutMs: number) {
    super();
    this.#address = isIPv6(target.address) ? `[${target.address}]:${target.port}` : `${target.address}:${target.port}`;
    this.#credentials = grpc.credentials.createSsl(Buffer.from(material.ca), Buffer.from(material.key), Buffer.from(material.cert));
    this.#serverName = material.serverName;
    this.#timeoutMs = connectTimeoutMs;
  }

  get ready(): boolean {
    return this.state === 'up' && this.#call?.writableNeedDrain === false;
  }

  start(): void {
    this.state = 'connecting';
    // One channel per Node: grpc-js would otherwise share one connection between clients.
    const client = new grpc.Client(this.#address, this.#credentials, {
      'grpc.ssl_target_name_override': this.#serverName, 'grpc.default_authority': this.#serverName, 'grpc.use_local_subchannel_pool': 1,
    });
    this.#client = client;
    client.waitForReady(Date.now() + this.#timeoutMs, (err) => {
      if (this.state === 'closed' || client !== this.#client) return;
      if (err) this.#down(client, err.message);
      else this.#open(client);
    });
  }

  #open(client: grpc.Client): void {
    let ended!: () => void;
    this.#ended = new Promise((resolve) => (ended = resolve));
    this.#call = client.makeClientStreamRequest(EXPORT_PATH, identity, identity, (err) => {
      ended();
      this.failPending();
      if (this.state !== 'closed') this.#down(client, err === null ? 'the collector ended the stream' : (err.details || err.message));
    });
    this.#call.on('error', () => {});
    this.state = 'up';
    this.connects++;
    this.#backoff.reset();
  }

  #down(client: grpc.Client, reason: string): void {
    this.lastError = reason;
    client.close();
    if (client !== this.#client || this.state === 'closed') return;
    this.#call = undefined;
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
      const message = asBuffer(exportRequest(r, now));
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
    this.#client?.close();
  }
}
