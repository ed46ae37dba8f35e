// The gRPC servers' socket side: a TLS server (mutual TLS with ingest's CA, ALPN h2, TLS 1.2 minimum) that
// bounds what a peer can hold before gRPC sees it: connections per address and in total (the caller's
// ConnectionAdmission), and the time a handshake may take. Each connection that completes its handshake with ALPN h2 is handed to grpc-js (see
// collector.ts), which speaks HTTP/2 on it. When the certificates rotate, new handshakes use the new ones.
import { createServer, type TLSSocket } from 'node:tls';
import { exporterAddress } from './address.js';
import type { ConnectionAdmission, RefusalReason as AdmissionRefusal } from './admission.js';
import { serve, type StreamListener } from './tcp.js';
import { serveRotating, type TlsMaterialSource } from './tls.js';
import type { TlsMaterial } from '../tls/provider.js';
import { tlsServerOptions } from '../tls/server-options.js';

export interface GrpcListenerOptions {
  readonly host: string;
  readonly port: number;
  /** Connection slots: in all, per address, and kept for known peers. */
  readonly admission: ConnectionAdmission;
  readonly handshakeTimeoutMs: number;
  readonly minVersion: 'TLSv1.2' | 'TLSv1.3';
  readonly certificates: TlsMaterialSource<TlsMaterial>;
  /** Require and verify a client certificate (the collector); the flow stream service serves any client. */
  readonly clientCertificate?: boolean;
}

export type RefusalReason = 'handshake' | 'alpn' | AdmissionRefusal;

export interface GrpcListenerHooks {
  /** A connection ready for HTTP/2. */
  connection(socket: TLSSocket): void;
  refused(reason: RefusalReason, address: string, detail: string): void;
}

export async function listenGrpc(opts: GrpcListenerOptions, hooks: GrpcListenerHooks): Promise<StreamListener> {
  const { certificates } = opts;
  const secureOptions = (material: TlsMaterial) => ({
    ...tlsServerOptions(material, opts.minVersion),
    ...(opts.clientCertificate === false && { requestCert: false, rejectUnauthorized: false }),
  });
  const server = createServer(
    { ...secureOptions(certificates.current()), ALPNProtocols: ['h2'], handshakeTimeout: opts.handshakeTimeoutMs, noDelay: true },
    (socket: TLSSocket) => {
      // grpc-go (≥ 1.67) insists on h2 and so does this server: anything else is not a gRPC client.
      if (socket.alpnProtocol !== 'h2') {
        hooks.refused('alpn', exporterAddress(socket.remoteAddress ?? ''), `ALPN ${String(socket.alpnProtocol)}, not h2`);
        socket.destroy();
        return;
      }
      hooks.connection(socket);
    },
  );
  server.on('tlsClientError', (err, socket) => hooks.refused('handshake', exporterAddress(socket.remoteAddress ?? ''), err.message));
  return serveRotating(server, certificates, secureOptions, () =>
    serve(server, { ...opts, onRefused: (reason, message, address) => hooks.refused(reason, address, message) }, 'grpc'),
  );
}
