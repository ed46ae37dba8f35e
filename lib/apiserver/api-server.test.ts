// The API server as Antrea's: HTTPS with a self-signed certificate, the loopback token from its file,
// other bearer tokens reviewed by (the fake) Kubernetes, health paths open; over real TLS sockets.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import { connect } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { FakeKubeApiServer, kubeConfigFor } from '../k8s/testing/fake-api-server.js';
import { apiServerSection } from '../telemetry/config.js';
import { TelemetryServer } from '../telemetry/http.js';
import { componentLogger } from '../telemetry/logger.js';
import { issueCA, issueServerCert } from '../tls/issue.js';
import { type ApiTarget, apiRequest } from './client.js';
import { REVIEW_LIMITS } from './review-gate.js';
import { type RunningApiServer, startApiServer } from './start.js';

const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
const ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
const logger = componentLogger('api-test');

async function start(section: Record<string, unknown>, fake?: FakeKubeApiServer): Promise<{ api: RunningApiServer; http: TelemetryServer }> {
  const http = new TelemetryServer();
  http.addJsonRoute('/flowrecords', () => [{ sourceIPv4Address: '10.0.0.1' }]);
  const api = await startApiServer(http, apiServerSection.parse({ apiPort: 0, bindAddress: '127.0.0.1', ...section }), { logger, ...(fake && { kubeConfig: kubeConfigFor(fake) }) });
  return { api, http };
}

describe('API server over HTTPS, with Antrea\'s authentication', () => {
  let fake: FakeKubeApiServer;
  let dir: string;
  let api: RunningApiServer;
  let tokenFile: string;
  const as = (token?: string): ApiTarget => ({ url: api.url, insecure: true, ...(token !== undefined && { token }) });

  before(async () => {
    fake = await FakeKubeApiServer.start();
    fake.addToken('alice-token', { username: 'alice', groups: ['flow-viewers'] });
    fake.allow('alice', 'get /flowrecords', 'get /metrics');
    fake.addToken('bob-token', { username: 'bob' });
    fake.addToken('admin-token', { username: 'kubernetes-admin', groups: ['system:masters'] });
    dir = await mkdtemp(join(tmpdir(), 'flowagg-api-'));
    tokenFile = join(dir, 'apiserver', 'loopback-client-token');
    ({ api } = await start({ loopbackTokenFile: tokenFile, delegateAuth: true }, fake));
  });
  after(async () => {
    await api.close();
    await fake.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the loopback token to its file, readable by this user only, and accepts it', async () => {
    assert.equal(readFileSync(tokenFile, 'utf8'), api.token);
    assert.equal((await stat(tokenFile)).mode & 0o777, 0o600);
    const before = fake.count();
    const res = await apiRequest(as(api.token), '/flowrecords');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, [{ sourceIPv4Address: '10.0.0.1' }]);
    assert.equal(fake.count(), before, 'the loopback token is not asked about');
  });

  it('answers /healthz, /livez and /readyz without a token', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) assert.equal((await apiRequest(as(), path)).status, 200, path);
  });

  it('refuses a request without a token (403: anonymous is not allowed), with a wrong token (401), and with a token Kubernetes denies (403)', async () => {
    const anonymous = await apiRequest(as(), '/flowrecords');
    assert.equal(anonymous.status, 403);
    assert.deepEqual(anonymous.json, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'forbidden: User "system:anonymous" cannot get path "/flowrecords": no rule of the fake allows system:anonymous to get /flowrecords',
    });
    const wrong = await apiRequest(as('not-a-token'), '/flowrecords');
    assert.equal(wrong.status, 401);
    assert.match((wrong.json as { message: string }).message, /^Unauthorized: invalid bearer token/);
    const bob = await apiRequest(as('bob-token'), '/flowrecords');
    assert.equal(bob.status, 403);
    assert.match((bob.json as { message: string }).message, /User "bob" cannot get path "\/flowrecords"/);
    assert.equal((await apiRequest(as('alice-token'), '/metrics')).status, 200, 'alice may read /metrics');
    assert.equal((await apiRequest(as('bob-token'), '/metrics')).status, 403, '/metrics is not a health path');
  });

  it('answers a token Kubernetes allows, asking once per token and path within 10 s', async () => {
    const reviews = fake.count({ path: TOKEN_REVIEWS });
    const access = fake.count({ path: ACCESS_REVIEWS });
    for (let i = 0; i < 20; i++) assert.equal((await apiRequest(as('alice-token'), '/flowrecords')).status, 200);
    assert.equal(fake.count({ path: TOKEN_REVIEWS }) - reviews, 0, 'alice-token was reviewed by the earlier test and is still kept');
    assert.equal(fake.count({ path: ACCESS_REVIEWS }) - access, 1, 'get /flowrecords for alice: one SubjectAccessReview');
    const admin = await apiRequest(as('admin-token'), '/flowrecords');
    assert.equal(admin.status, 200);
    assert.equal(fake.count({ path: ACCESS_REVIEWS }) - access, 1, 'system:masters is allowed without a SubjectAccessReview, as Kubernetes does');
  });

  it('does not turn a flood of invented tokens into a flood of TokenReviews', async () => {
    const reviews = fake.count({ path: TOKEN_REVIEWS });
    const started = Date.now();
    const statuses: number[] = [];
    // 20 at a time: more connections at once from one address are themselves refused.
    for (let batch = 0; batch < 10; batch++) {
      statuses.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => apiRequest(as(`forged-${batch}-${i}`), '/flowrecords').then((r) => r.status)))));
    }
    const seconds = (Date.now() - started) / 1000 + 1;
    const sent = fake.count({ path: TOKEN_REVIEWS }) - reviews;
    assert.ok(sent <= REVIEW_LIMITS.burst + Math.ceil(REVIEW_LIMITS.perSecond * seconds), `${sent} TokenReviews for 200 invented tokens from one address`);
    assert.equal(statuses.filter((s) => s === 401).length, sent, 'each token reviewed is refused');
    assert.equal(statuses.filter((s) => s === 429).length, 200 - sent, 'the rest are told to come back later, without a review');
    assert.equal((await apiRequest(as(api.token), '/flowrecords')).status, 200, 'the loopback token still works meanwhile');
  });

  it('serves a self-signed certificate for localhost, 127.0.0.1 and ::1, which its CA verifies', async () => {
    const sans = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: api.port, rejectUnauthorized: false }, () => {
        resolve(socket.getPeerCertificate().subjectaltname ?? '');
        socket.end();
      });
      socket.on('error', reject);
    });
    assert.equal(sans, 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    assert.ok(new X509Certificate(api.ca!).ca);
    assert.equal((await apiRequest({ url: api.url, ca: api.ca!, token: api.token }, '/flowrecords')).status, 200, 'verified with the CA');
    await assert.rejects(apiRequest({ url: api.url, token: api.token }, '/flowrecords'), /unable to verify the first certificate/, 'not trusted without its CA');
  });

  it('removes its token file when it stops', async () => {
    const other = join(dir, 'other-token');
    const second = await start({ loopbackTokenFile: other, delegateAuth: false });
    assert.ok(existsSync(other));
    await second.api.close();
    assert.ok(!existsSync(other));
  });
});

describe('API server settings', () => {
  it('without Kubernetes, accepts only the loopback token', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'flowagg-api-'));
    const { api } = await start({ loopbackTokenFile: join(dir, 'token'), delegateAuth: false });
    t.after(async () => {
      await api.close();
      await rm(dir, { recursive: true, force: true });
    });
    const target = (token?: string): ApiTarget => ({ url: api.url, insecure: true, ...(token !== undefined && { token }) });
    assert.equal((await apiRequest(target(api.token), '/flowrecords')).status, 200);
    const other = await apiRequest(target('alice-token'), '/flowrecords');
    assert.equal(other.status, 401);
    assert.match((other.json as { message: string }).message, /not the loopback token, and tokens are not checked with Kubernetes here \(apiServer.delegateAuth\)/);
    const anonymous = await apiRequest(target(), '/flowrecords');
    assert.equal(anonymous.status, 403);
    assert.match((anonymous.json as { message: string }).message, /no Kubernetes API to ask/);
    // As Kubernetes reads the header: the scheme in any case; another scheme is no bearer token (anonymous).
    const withHeader = (authorization: string) =>
      new Promise<number>((resolve, reject) => {
        request(`${api.url}/flowrecords`, { rejectUnauthorized: false, agent: false, headers: { authorization } }, (res) => resolve(res.resume().statusCode!)).on('error', reject).end();
      });
    assert.equal(await withHeader(`bearer ${api.token}`), 200);
    assert.equal(await withHeader(`Basic ${Buffer.from(`x:${api.token}`).toString('base64')}`), 403);
  });

  it('tlsMinVersion VersionTLS13 refuses a TLS 1.2 client; the configured cipher suites are those offered', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'flowagg-api-'));
    const { api } = await start({ loopbackTokenFile: join(dir, 'token'), delegateAuth: false, tlsMinVersion: 'VersionTLS13' });
    t.after(async () => {
      await api.close();
      await rm(dir, { recursive: true, force: true });
    });
    const handshake = (opts: { maxVersion?: 'TLSv1.2'; ciphers?: string }) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: api.port, rejectUnauthorized: false, ...opts }, () => {
          resolve(`${socket.getProtocol()}`);
          socket.end();
        });
        socket.on('error', reject);
      });
    assert.equal(await handshake({}), 'TLSv1.3');
    await assert.rejects(handshake({ maxVersion: 'TLSv1.2' }), /protocol version|alert/i);

    const dir12 = await mkdtemp(join(tmpdir(), 'flowagg-api-'));
    const suites = await start({ loopbackTokenFile: join(dir12, 'token'), delegateAuth: false, tlsMinVersion: 'VersionTLS12', tlsCipherSuites: 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384' });
    t.after(async () => {
      await suites.api.close();
      await rm(dir12, { recursive: true, force: true });
    });
    const cipher = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: suites.api.port, rejectUnauthorized: false, maxVersion: 'TLSv1.2' }, () => {
        resolve(socket.getCipher().name);
        socket.end();
      });
      socket.on('error', reject);
    });
    assert.equal(cipher, 'ECDHE-RSA-AES256-GCM-SHA384');
  });

  it('serves configured certificate files instead of a self-signed certificate', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'flowagg-api-'));
    const validity = { now: new Date(), validityMs: 86_400_000 };
    const ca = await issueCA(validity);
    const server = await issueServerCert(ca, ['flowagg.example', '127.0.0.1'], validity);
    await writeFile(join(dir, 'api.crt'), server.cert);
    await writeFile(join(dir, 'api.key'), server.key);
    const { api } = await start({ loopbackTokenFile: join(dir, 'token'), delegateAuth: false, certFile: join(dir, 'api.crt'), keyFile: join(dir, 'api.key') });
    t.after(async () => {
      await api.close();
      await rm(dir, { recursive: true, force: true });
    });
    assert.equal(api.ca, undefined, 'no CA of its own to publish');
    assert.equal((await apiRequest({ url: api.url, ca: ca.cert, token: api.token }, '/flowrecords')).status, 200, 'verified with the CA that issued the files');
  });

  it('protocol http: plain HTTP on 127.0.0.1, no authentication, no token file', async (t) => {
    const { api, http } = await start({ protocol: 'http', bindAddress: '' });
    t.after(() => api.close());
    assert.match(api.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal((await apiRequest({ url: api.url }, '/flowrecords')).status, 200);
    assert.ok(http instanceof TelemetryServer);
  });
});
