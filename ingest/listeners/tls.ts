// The TLS collector (mutual TLS, as Antrea runs it): a TCP listener whose connections are TLS sockets,
// with the server options (certificate, CA, client certificate required, TLS 1.2 minimum) built by
// ingest/tls. When the certificates rotate, new handshakes use the new ones; open sessions continue.
import { type Socket } from 'node:net';
import { createServer, type TLSSocket, type TlsOptions } from 'node:tls';
import { type ConnectionHandler, type StreamListener, type StreamListenerOptions, serve } from './tcp.js';

/** What the listener needs from ingest/tls's CertificateProvider. */
export interface TlsMaterialSource<M> {
  current(): M;
  on(event: 'updated', listener: () => void): unknown;
  off(event: 'updated', listener: () => void): unknown;
}

export interface TlsListenerOptions<M> extends StreamListenerOptions {
  readonly certificates: TlsMaterialSource<M>;
  readonly serverOptions: (material: M) => TlsOptions;
  /** A client that failed the handshake (no certificate, one not signed by the CA, old protocol version). */
  readonly onHandshakeError?: (err: Error, socket: Socket) => void;
}

export async function listenTls<M>(opts: TlsListenerOptions<M>, onConnection: ConnectionHandler): Promise<StreamListener> {
  const { certificates, serverOptions } = opts;
  const server = createServer({ ...serverOptions(certificates.current()), noDelay: true }, (socket: TLSSocket) => onConnection(socket));
  server.on('tlsClientError', (err, socket) => opts.onHandshakeError?.(err, socket));
  const reload = () => server.setSecureContext(serverOptions(certificates.current()));
  certificates.on('updated', reload);
  const listener = await serve(server, opts, 'tls').catch((err: unknown) => {
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
