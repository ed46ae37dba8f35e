// The UDP collector socket: one datagram is one IPFIX message (RFC 7011 §10.3.2). Bound to every IPv4
// and IPv6 address by default (a dual-stack socket), falling back to IPv4 where IPv6 is unavailable.
import { createSocket, type Socket } from 'node:dgram';
import { FlowaggError } from '../errors.js';
import { INGEST_LISTEN } from './errors.js';
import { type Endpoint, exporterAddress } from './address.js';

export interface UdpListenerOptions {
  readonly host: string;
  readonly port: number;
  readonly maxDatagramBytes: number;
  readonly receiveBufferBytes: number;
}

export interface UdpListener {
  readonly port: number;
  close(): Promise<void>;
}

export type DatagramHandler = (message: Buffer, from: Endpoint) => void;

export async function listenUdp(opts: UdpListenerOptions, onDatagram: DatagramHandler, onTruncated: (from: Endpoint) => void): Promise<UdpListener> {
  const families = opts.host === '' ? (['udp6', 'udp4'] as const) : ([opts.host.includes(':') ? 'udp6' : 'udp4'] as const);
  let lastError: unknown;
  for (const family of families) {
    const host = opts.host !== '' ? opts.host : family === 'udp6' ? '::' : '0.0.0.0';
    // recvBufferSize cannot be set before bind; the maximum datagram size bounds each read.
    const socket = createSocket({ type: family, reuseAddr: false });
    try {
      await bind(socket, host, opts.port);
    } catch (err) {
      socket.close();
      lastError = err;
      continue;
    }
    try {
      socket.setRecvBufferSize(opts.receiveBufferBytes);
    } catch {
      // The kernel caps SO_RCVBUF (net.core.rmem_max); the default buffer still works.
    }
    socket.on('message', (msg, rinfo) => {
      const from = { address: exporterAddress(rinfo.address), port: rinfo.port };
      if (msg.length > opts.maxDatagramBytes) onTruncated(from);
      else onDatagram(msg, from);
    });
    socket.on('error', () => {});
    return {
      port: socket.address().port,
      close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
    };
  }
  throw new FlowaggError(INGEST_LISTEN, `cannot listen on UDP ${opts.host || '*'}:${opts.port}: ${(lastError as Error).message}`, {
    context: { transport: 'udp', host: opts.host, port: opts.port },
    cause: lastError,
  });
}

function bind(socket: Socket, address: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ address, port, exclusive: true }, () => {
      socket.off('error', reject);
      resolve();
    });
  });
}
