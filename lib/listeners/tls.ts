// The TLS collector (mutual TLS, as Antrea runs it): a TCP listener whose connections are TLS sockets,
// with the server options (certificate, CA, client certificate required, TLS 1.2 minimum) built by
// lib/tls. When the certificates rotate, new handshakes use the new ones; open sessions continue.
// A client must finish its handshake within `handshakeTimeoutMs`, or it is closed: a raw TCP connection that
// never sends a ClientHello would otherwise hold its slot for ever.
import type { Socket } from 'node:net';
import { createServer, type Server, type TLSSocket, type TlsOptions } from 'node:tls';
import { type ConnectionHandler, type StreamListener, type StreamListenerOptions, serve } from './tcp.js';

/** What the listener needs from lib/tls's CertificateProvider. */
export interface TlsMaterialSource<M> {
  current(): M;
  on(event: 'updated', listener: () => void): unknown;
  off(event: 'updated', listener: () => void): unknown;
}

export interface TlsListenerOptions<M> extends StreamListenerOptions {
  readonly certificates: TlsMaterialSource<M>;
  readonly serverOptions: (material: M) => TlsOptions;
  readonly handshakeTimeoutMs: number;
  /** A client that failed the handshake (no certificate, one not signed by the CA, old protocol version, too slow). */
  readonly onHandshakeError?: (err: Error, socket: Socket) => void;
}

/** The TCP socket under a TLS socket: Node keeps it as `_parent` (no public accessor). */
const parentOf = (socket: Socket): Socket | undefined => (socket as Socket & { _parent?: Socket })._parent;

export async function listenTls<M>(opts: TlsListenerOptions<M>, onConnection: ConnectionHandler): Promise<StreamListener> {
  const { certificates, serverOptions } = opts;
  const server = createServer({ ...serverOptions(certificates.current()), noDelay: true, handshakeTimeout: opts.handshakeTimeoutMs }, (socket: TLSSocket) => onConnection(socket));
  const refused = new WeakSet<Socket>();
  server.on('tlsClientError', (err, socket) => {
    // With a listener here Node leaves the socket open (a handshake timeout would not free the slot).
    socket.destroy();
    const parent = parentOf(socket);
    if (parent === undefined || !refused.has(parent)) opts.onHandshakeError?.(err, socket);
  });
  return serveRotating(server, certificates, serverOptions, () => serve(server, { ...opts, onRefused: (reason, message, address, socket) => {
    refused.add(socket);
    opts.onRefused?.(reason, message, address, socket);
  } }, 'tls'));
}

/**
 * Serves `server` (started by `start`) with the certificates' current material, giving new handshakes
 * the new material whenever it rotates, until the listener is closed.
 */
export async function serveRotating<M>(server: Server, certificates: TlsMaterialSource<M>, serverOptions: (material: M) => TlsOptions, start: () => Promise<StreamListener>): Promise<StreamListener> {
  const reload = () => server.setSecureContext(serverOptions(certificates.current()));
  certificates.on('updated', reload);
  const listener = await start().catch((err: unknown) => {
    certificates.off('updated', reload);
    throw err;
  });
  return {
    port: listener.port,
    close: async () => {
      certificates.off('updated', reload);
      await listener.close();
    },
  };
}
