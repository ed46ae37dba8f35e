// An Agent's IPFIX export over a byte stream (TCP, or TLS with the client certificate): connect, send the
// templates, then data messages; on any failure, reconnect after a backoff and start a new session
// (templates again, sequence numbers from 0), as an Agent's exporting process does. What was written to a
// connection that then failed is reported lost once its write fails or the connection closes.
import type { Socket } from 'node:net';
import type { AgentNode, AgentRecord } from './antrea/workload.js';
import { errorMessage } from '../lib/errors.js';
import { MAX_MESSAGE_LENGTH } from '../lib/ipfix/message-header.js';
import { AgentIpfixSession, type Encoded, type SessionOptions } from './ipfix-session.js';
import { Backoff } from '../lib/retry.js';
import { type Link, LinkBase, NOT_CONNECTED, RECONNECT_BACKOFF, type WriteDone } from './link.js';

/** Opens a connection, resolving once it is ready to carry IPFIX (connected; for TLS, the handshake done). */
export type Dial = () => Promise<Socket>;

const ignore: WriteDone = () => {};

export class StreamLink extends LinkBase implements Link {
  readonly #node: AgentNode;
  readonly #dial: Dial;
  #socket: Socket | undefined;
  #session: AgentIpfixSession | undefined;
  readonly #backoff = new Backoff(RECONNECT_BACKOFF);
  #closed = false;
  #retry: NodeJS.Timeout | undefined;

  constructor(node: AgentNode, dial: Dial, readonly sourceAddress: string | undefined, private readonly session: SessionOptions = {}) {
    super();
    this.#node = node;
    this.#dial = dial;
  }

  get ready(): boolean {
    return this.state === 'up' && this.#socket?.writableNeedDrain === false;
  }

  start(): void {
    void this.#connect();
  }

  async #connect(): Promise<void> {
    this.state = 'connecting';
    let socket: Socket;
    try {
      socket = await this.#dial();
    } catch (err) {
      this.#down(err);
      return;
    }
    if (this.#closed) {
      socket.destroy();
      return;
    }
    this.#socket = socket;
    this.#session = new AgentIpfixSession(this.#node, MAX_MESSAGE_LENGTH, this.session);
    this.state = 'up';
    this.connects++;
    this.#backoff.reset();
    socket.on('error', (err) => (this.lastError = err.message));
    socket.on('close', () => {
      this.#socket = undefined;
      this.failPending();
      if (!this.#closed) this.#down(new Error(this.lastError ?? 'closed by the collector'));
    });
    // The collector sends nothing; reading keeps a close from turning into a reset.
    socket.resume();
    this.#write(this.#session.templates(), [], ignore);
  }

  #down(err: unknown): void {
    this.lastError = errorMessage(err);
    if (this.#closed) return;
    this.state = 'down';
    this.#retry = setTimeout(() => void this.#connect(), this.#backoff.next());
  }

  send(records: readonly AgentRecord[], done: WriteDone): void {
    if (this.state !== 'up' || this.#session === undefined) {
      done(records, NOT_CONNECTED());
      return;
    }
    this.#write(this.#session.records(records), records, done);
  }

  #write(encoded: Encoded, records: readonly AgentRecord[], done: WriteDone): void {
    const socket = this.#socket!;
    this.writeMessages(encoded, records, done, (message, cb) => socket.write(message, cb));
  }

  async close(timeoutMs: number): Promise<void> {
    this.#closed = true;
    this.state = 'closed';
    clearTimeout(this.#retry);
    const socket = this.#socket;
    if (socket === undefined) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        socket.destroy();
        resolve();
      }, timeoutMs);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.end();
    });
  }
}
