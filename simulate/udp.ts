// IPFIX over UDP: one connected socket per Node (so that the collector's ICMP "port unreachable" comes back
// as an error), one session for the socket's life: the templates first and again every refresh interval
// (RFC 7011 §8.4; go-ipfix's exporter refreshes them), messages small enough for a 1500-byte MTU.
import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { AgentNode, AgentRecord } from './antrea/workload.js';
import { errorMessage } from '../lib/errors.js';
import { AgentIpfixSession, type Encoded } from './ipfix-session.js';
import { type Link, LinkBase, NOT_CONNECTED, type WriteDone } from './link.js';
import type { Target } from './tcp.js';

/** IPv4 and UDP headers take 28 bytes of a 1500-byte MTU; the rest leaves room for a tunnel's. */
export const UDP_MESSAGE_SIZE = 1400;
/** Datagrams queued in the socket beyond which the Node counts as backed up. */
const MAX_QUEUED = 512;

export class UdpLink extends LinkBase implements Link {
  readonly #node: AgentNode;
  readonly #target: Target;
  readonly #refreshMs: number;
  #socket: Socket | undefined;
  #session: AgentIpfixSession | undefined;
  #refresh: NodeJS.Timeout | undefined;

  constructor(node: AgentNode, target: Target, readonly sourceAddress: string | undefined, templateRefreshMs: number) {
    super();
    this.#node = node;
    this.#target = target;
    this.#refreshMs = templateRefreshMs;
  }

  get ready(): boolean {
    return this.state === 'up' && this.#socket!.getSendQueueCount() < MAX_QUEUED;
  }

  start(): void {
    const socket = createSocket(isIPv6(this.#target.address) ? 'udp6' : 'udp4');
    this.#socket = socket;
    // On a connected socket, errors are the collector's ICMP refusals: the Agent keeps exporting.
    socket.on('error', (err) => (this.lastError = errorMessage(err)));
    socket.bind({ port: 0, ...(this.sourceAddress !== undefined && { address: this.sourceAddress }) }, () => {
      socket.connect(this.#target.port, this.#target.address, () => {
        if (this.state === 'closed') return;
        this.#session = new AgentIpfixSession(this.#node, UDP_MESSAGE_SIZE);
        this.state = 'up';
        this.connects++;
        this.#sendTemplates();
        this.#refresh = setInterval(() => this.#sendTemplates(), this.#refreshMs);
      });
    });
  }

  #sendTemplates(): void {
    this.#write(this.#session!.templates(), [], () => {});
  }

  send(records: readonly AgentRecord[], done: WriteDone): void {
    if (this.state !== 'up') {
      done(records, NOT_CONNECTED());
      return;
    }
    this.#write(this.#session!.records(records), records, done);
  }

  #write(encoded: Encoded, records: readonly AgentRecord[], done: WriteDone): void {
    const socket = this.#socket!;
    this.writeMessages(encoded, records, done, (message, cb) =>
      socket.send(message, (err) => {
        if (err) this.lastError = err.message;
        cb(err);
      }),
    );
  }

  async close(timeoutMs: number): Promise<void> {
    const wasUp = this.state === 'up';
    this.state = 'closed';
    clearInterval(this.#refresh);
    const socket = this.#socket;
    if (socket === undefined) return;
    // Datagrams still queued go out before the socket closes (or the wait ends).
    for (const end = Date.now() + timeoutMs; wasUp && socket.getSendQueueCount() > 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 5));
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    this.failPending();
  }
}
