// The floors of the gRPC collector's Export path: servers that take the Agent's mutual-TLS connection and
// Export stream as the collector does and count its messages, decoding nothing and writing nothing to a
// log. One is grpc-js with the messages left as bytes (what the collector pays before its own code runs);
// the other is node:http2 alone, reading each message's 5-byte length prefix itself (what a handler of
// our own would pay, whatever it did above). docs/grpc.md, "Throughput", reads them.
import * as grpc from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { type Http2Server, type ServerHttp2Stream, constants, createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { EXPORT_SERVICE } from '../../ingest/grpc/collector.js';

const PREFIX = 5;
/** The empty ExportResponse, length-prefixed. */
const EMPTY_RESPONSE = Buffer.alloc(PREFIX);

export interface FloorServer {
  readonly port: number;
  /** Messages read by every stream so far. */
  messages(): number;
  close(): Promise<void>;
}

/** Counts the length-prefixed messages of one stream's data, across chunk boundaries, and answers at its end. */
function countMessages(stream: ServerHttp2Stream, counted: (n: number) => void): void {
  let need = 0; // body bytes of the current message still to come
  let partial = 0; // bytes seen of a prefix split across chunks
  let length = 0; // its length bytes so far
  stream.on('data', (chunk: Buffer) => {
    let at = 0;
    let n = 0;
    while (at < chunk.length) {
      if (need > 0) {
        const take = Math.min(need, chunk.length - at);
        at += take;
        need -= take;
      } else if (partial === 0 && at + PREFIX <= chunk.length) {
        need = chunk.readUInt32BE(at + 1);
        at += PREFIX;
        n++;
      } else {
        if (partial > 0) length = length * 256 + chunk[at]!;
        at++;
        if (++partial === PREFIX) {
          need = length;
          length = partial = 0;
          n++;
        }
      }
    }
    counted(n);
  });
  stream.on('end', () => {
    stream.respond({ [constants.HTTP2_HEADER_STATUS]: 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(EMPTY_RESPONSE);
  });
}

const certificates = (certDir: string) => {
  const read = (name: string) => readFileSync(join(certDir, name));
  return { key: read('server.key'), cert: read('server.crt'), ca: read('ca.crt') };
};

/** A node:http2 server over the TLS directory `certDir` (ca.crt, server.crt, server.key), asking for client certificates. */
export async function startHttp2Floor(certDir: string): Promise<FloorServer> {
  const { key, cert, ca } = certificates(certDir);
  let messages = 0;
  const server: Http2Server = createSecureServer({ key, cert, ca, requestCert: true, rejectUnauthorized: true, ALPNProtocols: ['h2'] });
  server.on('stream', (stream) => countMessages(stream, (n) => (messages += n)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    messages: () => messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A grpc-js server of FlowExportService with the messages left as bytes, over the same certificates. */
export async function startGrpcJsFloor(certDir: string): Promise<FloorServer> {
  const { key, cert, ca } = certificates(certDir);
  let messages = 0;
  const server = new grpc.Server();
  server.addService(EXPORT_SERVICE, {
    Export: (call: grpc.ServerReadableStream<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      call.on('data', () => messages++);
      call.on('end', () => callback(null, Buffer.alloc(0)));
    },
  });
  const credentials = grpc.ServerCredentials.createSsl(ca, [{ private_key: key, cert_chain: cert }], true);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', credentials, (err, bound) => (err ? reject(err) : resolve(bound))));
  return { port, messages: () => messages, close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())) };
}
