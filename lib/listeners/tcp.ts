// The TCP collector: a plain net.Server whose connections are handed over as they arrive, once the
// admission (admission.ts: total, per-source and reserved slots) lets them in; refused ones are closed at once.
import { createServer, type Server, type Socket } from 'node:net';
import { FlowaggError } from '../errors.js';
import { INGEST_LISTEN } from './errors.js';
import { exporterAddress } from './address.js';
import type { ConnectionAdmission, RefusalReason } from './admission.js';

export interface StreamListenerOptions {
  readonly host: string;
  readonly port: number;
  readonly admission: ConnectionAdmission;
  /** A connection refused by the admission (already closed). */
  readonly onRefused?: (reason: RefusalReason, message: string, address: string, socket: Socket) => void;
}

export interface StreamListener {
  readonly port: number;
  /** Stops accepting and closes every open connection. */
  close(): Promise<void>;
}

export type ConnectionHandler = (socket: Socket) => void;

export async function listenTcp(opts: StreamListenerOptions, onConnection: ConnectionHandler): Promise<StreamListener> {
  return serve(createServer({ noDelay: true }, onConnection), opts, 'tcp');
}

/** Binds a stream server (TCP or TLS) and tracks its sockets so that close() ends them too. */
export async function serve(server: Server, opts: StreamListenerOptions, transport: 'tcp' | 'tls' | 'grpc'): Promise<StreamListener> {
  const sockets = new Set<Socket>();
  // Listeners added before this one (the TLS server's) must not see refused sockets: prepend.
  server.prependListener('connection', (socket: Socket) => {
    const address = exporterAddress(socket.remoteAddress ?? 'unknown');
    const admission = opts.admission.admit(address);
    if (!admission.admitted) {
      socket.destroy();
      opts.onRefused?.(admission.reason, admission.message, address, socket);
      return;
    }
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      admission.release();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) =>
      reject(
        new FlowaggError(INGEST_LISTEN, `cannot listen on ${transport.toUpperCase()} ${opts.host || '*'}:${opts.port}: ${err.message}`, {
          context: { transport, host: opts.host, port: opts.port },
          cause: err,
        }),
      ),
    );
    // No host: every IPv4 and IPv6 address.
    if (opts.host === '') server.listen(opts.port, () => resolve());
    else server.listen(opts.port, opts.host, () => resolve());
  });
  server.on('error', () => {});
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : opts.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
