import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { type ConnectionOptions, connect } from 'node:tls';
import type { TlsMaterial } from '../tls/provider.js';
import { tlsServerOptions } from '../tls/server-options.js';
import { issueCA, issueClientCert, issueServerCert, type KeyPair } from '../tls/issue.js';
import { ConnectionAdmission } from './admission.js';
import { listenTls } from './tls.js';

class FakeCertificates extends EventEmitter {
  constructor(public material: TlsMaterial) {
    super();
  }
  current(): TlsMaterial {
    return this.material;
  }
}

const validity = { now: new Date(), validityMs: 86_400_000 };

async function authority(): Promise<{ ca: KeyPair; material: TlsMaterial; client: KeyPair }> {
  const ca = await issueCA(validity);
  const server = await issueServerCert(ca, ['127.0.0.1'], validity);
  return { ca, material: { ...server, ca: ca.cert }, client: await issueClientCert(ca, validity) };
}

test('the TLS listener takes rotated certificates for new handshakes when the source says "updated"', async (t) => {
  const [first, second] = [await authority(), await authority()];
  const certificates = new FakeCertificates(first.material);
  let sessions = 0;
  const listener = await listenTls({ host: '127.0.0.1', port: 0, admission: new ConnectionAdmission({ maxConnections: 10, maxPerSource: 10, reservedForKnown: 0 }), handshakeTimeoutMs: 10_000, certificates, serverOptions: (m) => tlsServerOptions(m) }, (socket) => {
    sessions++;
    socket.end('ok');
  });
  t.after(() => listener.close());
  const attempt = (opts: ConnectionOptions) =>
    new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: listener.port, ...opts });
      socket.on('data', () => resolve(true));
      socket.once('error', () => resolve(false));
      socket.once('end', () => resolve(false));
    });
  const as = (a: Awaited<ReturnType<typeof authority>>, client: KeyPair) => ({ ca: a.ca.cert, cert: client.cert, key: client.key });
  assert.equal(await attempt(as(first, first.client)), true);
  certificates.material = second.material;
  certificates.emit('updated', second.material);
  assert.equal(await attempt(as(second, second.client)), true);
  assert.equal(await attempt(as(second, first.client)), false, 'a client certificate of the old CA is refused');
  assert.equal(sessions, 2);
  await listener.close();
  assert.equal(certificates.listenerCount('updated'), 0, 'close unsubscribes');
});
