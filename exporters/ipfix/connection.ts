// One transport session to the collector: TCP, TLS over TCP, or connected UDP. `write` resolves once
// every chunk was handed to the kernel (TCP: written and flushed from Node's buffers; UDP: sent). IPFIX
// has no acknowledgement, so that is what "accepted by the collector" means (docs/exporters.md).
//
// A collector that closes its side (FIN) is read as a graceful close: what was already written is still
// delivered (the socket is half-open until then), and the session is marked closed so that the next
// delivery opens a new one.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import type { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { FlowaggError, errorMessage } from '../../lib/errors.js';
import { notDelivered } from '../errors.js';
import type { CollectorAddress } from './address.js';
import { IPFIX_EXPORT_CONNECT, IPFIX_EXPORT_WRITE } from './errors.js';

export interface Connection {
  readonly transport: 'tcp' | 'tls' | 'udp';
  /** False once the collector closed, reset or refused the session. */
  readonly open: boolean;
  /** The largest message the path takes: 65535 over TCP, the interface MTU less IP and UDP headers over UDP. */
  readonly pathMessageSize: number;
  write(chunks: readonly Uint8Array[]): Promise<void>;
  close(): void;
}

export type TlsMaterial = Pick<ConnectionOptions, 'ca' | 'cert' | 'key' | 'servername' | 'minVersion'>;

const MAX_MESSAGE = 65535;
/** Antrea's UDP message size when the MTU is unknown. */
const UDP_FALLBACK = 512;

function connectError(a: CollectorAddress, err: unknown): FlowaggError {
  return notDelivered(
    new FlowaggError(IPFIX_EXPORT_CONNECT, `cannot reach the IPFIX collector ${a.host}:${a.port} (flowCollector.address): ${errorMessage(err)}`, {
      context: { key: 'flowCollector.address', host: a.host, port: a.port },
      retriable: true,
      cause: err,
    }),
  );
}

function writeError(a: CollectorAddress, err: unknown): FlowaggError {
  return new FlowaggError(IPFIX_EXPORT_WRITE, `sending to the IPFIX collector ${a.host}:${a.port} failed: ${errorMessage(err)}`, { context: { host: a.host, port: a.port }, retriable: true, cause: err });
}

/** Resolves with the socket once `event` fired; rejects (and destroys it) on error, after timeoutMs, or when `signal` aborts. */
function opened<T extends EventEmitter>(socket: T, event: string, timeoutMs: number, destroy: () => void, signal?: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
    const onAbort = () => fail(new Error('the exporter is stopping'));
    const fail = (err: Error) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      destroy();
      reject(err);
    };
    if (signal?.aborted) return fail(new Error('the exporter is stopping'));
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('error', fail);
    socket.once(event, () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.off('error', fail);
      resolve(socket);
    });
  });
}

class StreamConnection implements Connection {
  open = true;
  readonly pathMessageSize = MAX_MESSAGE;

  constructor(
    readonly transport: 'tcp' | 'tls',
    private readonly socket: Socket,
    private readonly address: CollectorAddress,
  ) {
    socket.setNoDelay(true);
    socket.on('end', () => {
      this.open = false;
      socket.end();
    });
    socket.on('error', () => (this.open = false));
    socket.on('close', () => (this.open = false));
    // A collector does not talk back; anything it sends is read and ignored so the socket keeps flowing.
    socket.resume();
  }

  write(chunks: readonly Uint8Array[]): Promise<void> {
    if (!this.open) return Promise.reject(notDelivered(writeError(this.address, new Error('the connection is closed'))));
    return new Promise((resolve, reject) => {
      const onError = (err: Error) => reject(writeError(this.address, err));
      this.socket.once('error', onError);
      this.socket.cork();
      chunks.forEach((chunk, i) => {
        const last = i === chunks.length - 1;
        this.socket.write(chunk, last ? (err) => {
          this.socket.off('error', onError);
          if (err) reject(writeError(this.address, err));
          else resolve();
        } : undefined);
      });
      this.socket.uncork();
      if (chunks.length === 0) {
        this.socket.off('error', onError);
        resolve();
      }
    });
  }

  close(): void {
    this.open = false;
    this.socket.end();
    this.socket.destroySoon();
  }
}

class UdpConnection implements Connection {
  readonly transport = 'udp';
  open = true;

  constructor(
    private readonly socket: UdpSocket,
    private readonly address: CollectorAddress,
    readonly pathMessageSize: number,
  ) {
    socket.on('error', () => undefined);
  }

  write(chunks: readonly Uint8Array[]): Promise<void> {
    return Promise.all(
      chunks.map((chunk) => new Promise<void>((resolve, reject) => this.socket.send(chunk, (err) => (err ? reject(writeError(this.address, err)) : resolve())))),
    ).then(() => undefined);
  }

  close(): void {
    this.open = false;
    this.socket.close();
  }
}

/** The MTU of the interface that holds `localAddress`, from /sys (Linux); undefined elsewhere. */
export function interfaceMtu(localAddress: string): number | undefined {
  for (const [name, addrs] of Object.entries(networkInterfaces())) {
    if (!addrs?.some((a) => a.address === localAddress)) continue;
    try {
      const mtu = Number(readFileSync(`/sys/class/net/${name}/mtu`, 'utf8').trim());
      return Number.isInteger(mtu) && mtu > 0 ? mtu : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export async function openConnection(a: CollectorAddress, tls: TlsMaterial | undefined, timeoutMs: number, signal?: AbortSignal): Promise<Connection> {
  try {
    if (a.transport === 'udp') {
      const family = isIP(a.host) || (await lookup(a.host)).family;
      const socket = createSocket(family === 6 ? 'udp6' : 'udp4');
      socket.connect(a.port, a.host);
      await opened(socket, 'connect', timeoutMs, () => socket.close(), signal);
      const mtu = interfaceMtu(socket.address().address);
      const size = mtu === undefined ? UDP_FALLBACK : Math.min(MAX_MESSAGE, mtu - (family === 6 ? 48 : 28));
      return new UdpConnection(socket, a, size);
    }
    if (tls !== undefined) {
      const socket = tlsConnect({ host: a.host, port: a.port, ...tls, ...(tls.servername === undefined && isIP(a.host) === 0 && { servername: a.host }) });
      return new StreamConnection('tls', await opened(socket, 'secureConnect', timeoutMs, () => socket.destroy(), signal), a);
    }
    const socket = tcpConnect({ host: a.host, port: a.port, allowHalfOpen: true });
    return new StreamConnection('tcp', await opened(socket, 'connect', timeoutMs, () => socket.destroy(), signal), a);
  } catch (err) {
    throw connectError(a, err);
  }
}
