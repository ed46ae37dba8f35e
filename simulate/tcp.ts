// IPFIX over TCP: a plain connection per Node, from its own loopback address when it has one.
import { connect, type Socket } from 'node:net';
import type { Dial } from './stream-link.js';

export interface Target {
  /** The collector's address, resolved. */
  readonly address: string;
  readonly port: number;
}

/** Resolves once connected; a connection that has not opened within `timeoutMs` fails. */
export function connected(socket: Socket, readyEvent: 'connect' | 'secureConnect', timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => socket.destroy(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
    const failed = (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    socket.once('error', failed);
    socket.once(readyEvent, () => {
      clearTimeout(timer);
      socket.off('error', failed);
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}

export function tcpDial(target: Target, localAddress: string | undefined, timeoutMs: number): Dial {
  return () => connected(connect({ host: target.address, port: target.port, ...(localAddress !== undefined && { localAddress }) }), 'connect', timeoutMs);
}
