// Minimal IPFIX collectors for tests: a UDP socket that keeps every datagram, and a TCP server that splits
// each session's byte stream into messages by the IPFIX header's length field (RFC 7011 §10.4.1).
import { createSocket } from 'node:dgram';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket, type TlsOptions } from 'node:tls';
import { FlowaggError } from '../../lib/errors.js';
import { until } from '../../lib/testing/until.js';

export const HARNESS_COLLECT_TIMEOUT = 'FLOWAGG_ERR_HARNESS_COLLECT_TIMEOUT';
export const HARNESS_COLLECT_FRAMING = 'FLOWAGG_ERR_HARNESS_COLLECT_FRAMING';

export interface CollectedMessage {
  readonly bytes: Buffer;
  /** Exporter address and port as the collector saw them. */
  readonly from: { readonly address: string; readonly port: number };
  /** Index of the transport session (TCP connection) it arrived on; 0 for UDP. */
  readonly session: number;
}

export interface Collector {
  readonly transport: 'udp' | 'tcp';
  readonly address: string;
  readonly port: number;
  /** Everything received so far, in arrival order. */
  readonly messages: readonly CollectedMessage[];
  /** Resolves once `count` messages have arrived; rejects after timeoutMs. */
  waitForMessages(count: number, timeoutMs: number): Promise<readonly CollectedMessage[]>;
  close(): Promise<void>;
}

const IPFIX_HEADER = 16;
// Large enough for a burst of thousands of softflowd datagrams; the kernel caps it at rmem_max.
const UDP_RECEIVE_BUFFER = 8 * 1024 * 1024;

/** Resolves with the messages once `count` arrived; a HARNESS_COLLECT_TIMEOUT after timeoutMs. */
function waiter(messages: CollectedMessage[], transport: string) {
  return (count: number, timeoutMs: number): Promise<readonly CollectedMessage[]> =>
    until(`${count} messages at the ${transport} collector`, () => messages.length >= count && messages, { timeoutMs }).catch(() => {
      throw new FlowaggError(HARNESS_COLLECT_TIMEOUT, `${transport} collector: ${messages.length} of ${count} messages arrived within ${timeoutMs} ms`);
    });
}

export async function startUdpCollector(address = '127.0.0.1'): Promise<Collector> {
  const socket = createSocket({ type: address.includes(':') ? 'udp6' : 'udp4', recvBufferSize: UDP_RECEIVE_BUFFER });
  const messages: CollectedMessage[] = [];
  const wait = waiter(messages, 'udp');
  socket.on('message', (bytes, rinfo) => void messages.push({ bytes, from: { address: rinfo.address, port: rinfo.port }, session: 0 }));
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, address, () => resolve());
  });
  return {
    transport: 'udp',
    address,
    port: socket.address().port,
    messages,
    waitForMessages: wait,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** A header-only IPFIX message of `length` bytes whose sequence number is `seq`: what collector tests send. */
export function headerOnlyMessage(length: number, seq: number): Buffer {
  const b = Buffer.alloc(length);
  b.writeUInt16BE(10, 0);
  b.writeUInt16BE(length, 2);
  b.writeUInt32BE(seq, 8);
  return b;
}

/** Splits a stream into IPFIX messages; returns the complete ones and the unconsumed rest. */
export function splitIpfixStream(buf: Buffer): { messages: Buffer[]; rest: Buffer } {
  const messages: Buffer[] = [];
  let at = 0;
  while (buf.length - at >= IPFIX_HEADER) {
    const length = buf.readUInt16BE(at + 2);
    if (length < IPFIX_HEADER) {
      throw new FlowaggError(HARNESS_COLLECT_FRAMING, `IPFIX message length ${length} at stream offset ${at} is shorter than the header`, { context: { offset: at } });
    }
    if (buf.length - at < length) break;
    messages.push(buf.subarray(at, at + length));
    at += length;
  }
  return { messages, rest: buf.subarray(at) };
}

export interface StreamCollectorOptions {
  /** Default 0 (any free port); a fixed one to start a collector again where an exporter expects it. */
  readonly port?: number;
  /** TLS server options (key, cert, ca, requestCert...): a TLS collector. */
  readonly tls?: TlsOptions;
  /**
   * Each message as it arrives, instead of keeping it in `messages` (which stays empty): a collector that
   * writes what it receives out holds nothing, however long the run.
   */
  readonly onMessage?: (m: CollectedMessage) => void;
}

export interface StreamCollector extends Collector {
  /** Sessions that completed a TLS handshake with a client certificate the server verified. */
  readonly authorizedSessions: number;
  /** TLS handshakes the server refused (no or an untrusted client certificate, say). */
  readonly refusedHandshakes: number;
  /**
   * A graceful stop, as a collector restart: no new sessions, every open session is half-closed (FIN)
   * and read to its end, so what the exporter wrote before it noticed is still received.
   */
  drainAndClose(timeoutMs?: number): Promise<void>;
}

export async function startTcpCollector(address = '127.0.0.1', opts: StreamCollectorOptions = {}): Promise<StreamCollector> {
  const messages: CollectedMessage[] = [];
  const sockets = new Set<Socket>();
  const wait = waiter(messages, opts.tls ? 'tls' : 'tcp');
  let sessions = 0;
  let authorizedSessions = 0;
  let refusedHandshakes = 0;
  const keep = opts.onMessage ?? ((m: CollectedMessage) => void messages.push(m));
  const onSession = (socket: Socket) => {
    const session = sessions++;
    if ((socket as TLSSocket).authorized) authorizedSessions++;
    const from = { address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 };
    sockets.add(socket);
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      try {
        const { messages: complete, rest } = splitIpfixStream(Buffer.concat([pending, chunk]));
        pending = Buffer.from(rest);
        for (const bytes of complete) keep({ bytes: Buffer.from(bytes), from, session });
      } catch (e) {
        socket.destroy(e as Error);
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  };
  const server: Server = opts.tls ? createTlsServer(opts.tls, onSession).on('tlsClientError', () => refusedHandshakes++) : createServer(onSession);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, address, () => resolve());
  });
  const closed = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    transport: 'tcp',
    address,
    port: (server.address() as AddressInfo).port,
    messages,
    get authorizedSessions() {
      return authorizedSessions;
    },
    get refusedHandshakes() {
      return refusedHandshakes;
    },
    waitForMessages: wait,
    close: () => {
      for (const s of sockets) s.destroy();
      return closed();
    },
    async drainAndClose(timeoutMs = 10_000) {
      const done = closed();
      const ends = [...sockets].map((s) => new Promise<void>((resolve) => {
        s.once('close', () => resolve());
        s.end();
      }));
      const timer = setTimeout(() => sockets.forEach((s) => s.destroy()), timeoutMs);
      await Promise.all(ends);
      clearTimeout(timer);
      await done;
    },
  };
}
