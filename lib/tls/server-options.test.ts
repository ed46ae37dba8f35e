// A real node:tls server with tlsServerOptions(): who gets in. For each refusal the test says which
// side refused: the server's reason is its 'tlsClientError' (with TLS 1.3 a bad client certificate is
// judged after the client already considers the handshake done, and Node's server then drops the
// connection without an alert, so the reason is the socket's authorizationError).
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type ConnectionOptions, type Server, type TLSSocket, connect, createServer } from 'node:tls';
import { type KeyPair, issueCA, issueClientCert, issueServerCert } from './issue.js';
import { tlsServerOptions } from './server-options.js';
import { until } from '../testing/until.js';

const validity = { now: new Date(), validityMs: 365 * 86_400_000 };
/** For foreign CAs: another issuance second, so that their names differ from our CA's. */
const later = { ...validity, now: new Date(validity.now.getTime() + 5000) };
const SERVER_NAME = 'flow-aggregator.flows.svc';

type Outcome = { accepted: true; echoed: string } | { accepted: false; clientError: string; serverErrors: string[] };

describe('tlsServerOptions', async () => {
  const ca = await issueCA(validity);
  const material = { ...await issueServerCert(ca, [SERVER_NAME, '127.0.0.1'], validity), ca: ca.cert };
  let server: Server;
  let port: number;
  let serverErrors: string[] = [];
  let sessions = 0;

  before(async () => {
    server = createServer(tlsServerOptions(material), (socket: TLSSocket) => {
      sessions++;
      socket.pipe(socket);
    });
    server.on('tlsClientError', (err: NodeJS.ErrnoException, socket: TLSSocket) => serverErrors.push(String(socket.authorizationError ?? err.code)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Connects, sends a line, and reports whether the server echoed it or why the connection failed. */
  function attempt(opts: ConnectionOptions): Promise<Outcome> {
    serverErrors = [];
    return new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, servername: SERVER_NAME, ca: ca.cert, ...opts }, () => socket.write('hello\n'));
      let echoed = '';
      socket.on('data', (d: Buffer) => {
        echoed += d.toString();
        if (!echoed.endsWith('\n')) return;
        socket.removeAllListeners('end');
        socket.end();
        resolve({ accepted: true, echoed });
      });
      const refused = async (err: Error) => {
        socket.destroy();
        // The server's verdict may arrive after the client's error; wait for it a little (there is none when
        // the client gave up before sending anything).
        await until('the server\'s verdict', () => serverErrors.length > 0, { timeoutMs: 500 }).catch(() => {});
        resolve({ accepted: false, clientError: (err as NodeJS.ErrnoException).code ?? err.message, serverErrors });
      };
      socket.once('error', (err) => void refused(err));
      socket.once('end', () => void refused(new Error('closed by server')));
    });
  }

  const withCert = (pair: KeyPair): ConnectionOptions => ({ cert: pair.cert, key: pair.key });

  it('accepts an agent with the issued client certificate, over TLS 1.2 and 1.3', async () => {
    const client = await issueClientCert(ca, validity);
    assert.deepEqual(await attempt(withCert(client)), { accepted: true, echoed: 'hello\n' });
    assert.deepEqual(await attempt({ ...withCert(client), maxVersion: 'TLSv1.2' }), { accepted: true, echoed: 'hello\n' });
    assert.equal(sessions, 2);
  });

  it('refuses a client without a certificate', async () => {
    const outcome = await attempt({});
    // The server refuses with a certificate_required alert.
    assert.deepEqual(outcome, { accepted: false, clientError: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', serverErrors: ['ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE'] });
    assert.equal(sessions, 2, 'no session reached the application');
  });

  it('refuses a self-signed client certificate', async () => {
    const selfSigned = await issueCA(later);
    const outcome = await attempt(withCert(selfSigned));
    assert.equal(outcome.accepted, false);
    assert.deepEqual(outcome.serverErrors, ['DEPTH_ZERO_SELF_SIGNED_CERT']);
    assert.equal(sessions, 2);
  });

  it('refuses a client certificate issued by another CA', async () => {
    const foreign = await issueClientCert(await issueCA(later), later);
    const outcome = await attempt(withCert(foreign));
    assert.equal(outcome.accepted, false);
    assert.deepEqual(outcome.serverErrors, ['UNABLE_TO_VERIFY_LEAF_SIGNATURE']);
    assert.equal(sessions, 2);
  });

  it('refuses TLS 1.1: the server when the client offers it, else the client refuses itself', async () => {
    const client = await issueClientCert(ca, validity);
    // At security level 0 OpenSSL 3 lets the client send a TLS 1.1 ClientHello: the server refuses it.
    const offered = await attempt({ ...withCert(client), minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' });
    assert.equal(offered.accepted, false);
    assert.deepEqual(offered.serverErrors, ['ERR_SSL_UNSUPPORTED_PROTOCOL']);
    // At the default level the client has no protocol left to offer and fails before the server judges anything.
    const atDefaultLevel = await attempt({ ...withCert(client), maxVersion: 'TLSv1.1' });
    assert.equal(atDefaultLevel.accepted, false);
    assert.equal((atDefaultLevel as { clientError: string }).clientError, 'ERR_SSL_NO_PROTOCOLS_AVAILABLE');
    assert.equal(sessions, 2);
  });

  it('reloads through setSecureContext when the certificates rotate: the new CA in, the old one out', async () => {
    const oldClient = await issueClientCert(ca, validity);
    const newCA = await issueCA(later);
    server.setSecureContext(tlsServerOptions({ ...await issueServerCert(newCA, [SERVER_NAME], later), ca: newCA.cert }));
    const accepted = await attempt({ ...withCert(await issueClientCert(newCA, later)), ca: newCA.cert });
    assert.deepEqual(accepted, { accepted: true, echoed: 'hello\n' });
    const refused = await attempt({ ...withCert(oldClient), ca: newCA.cert });
    assert.equal(refused.accepted, false);
    assert.deepEqual((refused as { serverErrors: string[] }).serverErrors, ['UNABLE_TO_VERIFY_LEAF_SIGNATURE']);
  });
});
