// The Kubernetes path end to end against the fake API server: the objects Antrea agents read, reuse
// across restarts, one CA for replicas that start (or rotate) together, rotation, and repair.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { type TLSSocket, connect, createServer } from 'node:tls';
import { isFlowaggError } from '../errors.js';
import { FakeKubeApiServer, type KubeObject, type RecordedRequest, kubeConfigFor } from '../k8s/testing/fake-api-server.js';
import { tlsSection } from './config.js';
import { TLS_STORE } from './errors.js';
import { createCertificateSource } from './index.js';
import { issueCA, issueClientCert } from './issue.js';
import { CA_CONFIGMAP, CA_SECRET, CLIENT_SECRET } from './k8s-store.js';
import { CertificateProvider, type TlsMaterial } from './provider.js';
import { tlsServerOptions } from './server-options.js';
import { until } from '../testing/until.js';

const NS = 'fa';
const DAY = 86_400_000;

const secretData = (o: KubeObject | undefined) => {
  const data = o?.data as Record<string, string> | undefined;
  return Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
};
const configMapData = (o: KubeObject | undefined) => o?.data as Record<string, string> | undefined;

/** Holds the first `n` requests matching `match` until all `n` arrived, so that they race for real. */
function holdTogether(fake: FakeKubeApiServer, match: (r: RecordedRequest) => boolean, n = 2): void {
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((r) => (release = r));
  fake.intercept(async (req) => {
    if (!match(req) || arrived >= n) return undefined;
    if (++arrived === n) release();
    await all;
    return undefined;
  });
}

describe('certificates in Kubernetes', () => {
  let fake: FakeKubeApiServer;
  const providers: CertificateProvider[] = [];
  before(async () => (fake = await FakeKubeApiServer.start()));
  after(() => fake.stop());
  afterEach(() => providers.splice(0).forEach((p) => p.stop()));

  function provider(opts: { now?: () => Date; namespace?: string; checkInterval?: number } = {}): CertificateProvider {
    const config = tlsSection.parse({ mode: 'k8s', namespace: opts.namespace ?? NS, extraSANs: ['localhost'], checkInterval: opts.checkInterval ?? 3_600_000 });
    const source = createCertificateSource(config, { kubeConfig: kubeConfigFor(fake), flowAggregatorAddress: '10.0.0.5', ...(opts.now && { now: opts.now }) });
    assert.ok(source instanceof CertificateProvider);
    providers.push(source);
    return source;
  }

  it("publishes Antrea's Secrets and ConfigMap, and an agent using them is accepted", async () => {
    const p = provider();
    await p.start();
    const caSecret = fake.get('secrets', NS, CA_SECRET);
    const clientSecret = fake.get('secrets', NS, CLIENT_SECRET);
    const caMap = fake.get('configmaps', NS, CA_CONFIGMAP);
    for (const o of [caSecret, clientSecret, caMap]) assert.deepEqual(o?.metadata?.labels, { app: 'flow-aggregator' });
    assert.equal(caSecret?.type, 'kubernetes.io/tls');
    assert.equal(clientSecret?.type, 'kubernetes.io/tls');
    assert.deepEqual(Object.keys(secretData(caSecret)).sort(), ['tls.crt', 'tls.key']);
    assert.deepEqual(Object.keys(secretData(clientSecret)).sort(), ['tls.crt', 'tls.key']);
    assert.deepEqual(Object.keys(configMapData(caMap)!), ['ca.crt']);

    const material = p.current();
    assert.equal(configMapData(caMap)!['ca.crt'], material.ca);
    assert.equal(secretData(caSecret)['tls.crt'], material.ca);
    const server = new X509Certificate(material.cert);
    assert.equal(server.subjectAltName, 'DNS:flow-aggregator.fa.svc, IP Address:10.0.0.5, DNS:localhost');

    // What an Antrea agent does: CA from the ConfigMap, client certificate from the Secret, ServerName <svc>.<ns>.svc.
    const tlsServer = createServer(tlsServerOptions(material), (s: TLSSocket) => s.end('ok'));
    tlsServer.listen(0, '127.0.0.1');
    await once(tlsServer, 'listening');
    try {
      const agent = secretData(clientSecret);
      const socket = connect({
        port: (tlsServer.address() as AddressInfo).port,
        host: '127.0.0.1',
        servername: 'flow-aggregator.fa.svc',
        ca: configMapData(caMap)!['ca.crt'],
        cert: agent['tls.crt'],
        key: agent['tls.key'],
      });
      const [reply] = (await once(socket, 'data')) as [Buffer];
      assert.equal(reply.toString(), 'ok');
      socket.destroy();
    } finally {
      tlsServer.close();
    }
  });

  it('reuses the CA and the client Secret after a restart; only the server certificate is new', async () => {
    const first = provider({ namespace: 'restart' });
    await first.start();
    const before = first.current();
    const clientBefore = fake.get('secrets', 'restart', CLIENT_SECRET);
    first.stop();
    const writes = () => fake.count({ method: 'POST', namespace: 'restart' }) + fake.count({ method: 'PUT', namespace: 'restart' });
    const writesBefore = writes();

    const second = provider({ namespace: 'restart' });
    await second.start();
    const after = second.current();
    assert.equal(after.ca, before.ca);
    assert.deepEqual(fake.get('secrets', 'restart', CLIENT_SECRET), clientBefore);
    assert.equal(writes(), writesBefore, 'the restart wrote nothing');
    assert.notEqual(after.cert, before.cert, 'the server certificate is per replica, in memory');
    assert.ok(new X509Certificate(after.cert).checkIssued(new X509Certificate(after.ca)));
  });

  it('gives two replicas starting together one CA', async () => {
    const ns = 'race';
    holdTogether(fake, (r) => r.method === 'GET' && r.namespace === ns && r.name === CA_SECRET);
    const [a, b] = [provider({ namespace: ns }), provider({ namespace: ns })];
    await Promise.all([a.start(), b.start()]);
    assert.equal(fake.count({ method: 'POST', namespace: ns, plural: 'secrets', status: 409 }) >= 1, true, 'both tried to create the CA');
    assert.equal(a.current().ca, b.current().ca);
    assert.equal(secretData(fake.get('secrets', ns, CA_SECRET))['tls.crt'], a.current().ca);
    assert.equal(configMapData(fake.get('configmaps', ns, CA_CONFIGMAP))!['ca.crt'], a.current().ca);
    const client = new X509Certificate(secretData(fake.get('secrets', ns, CLIENT_SECRET))['tls.crt']!);
    assert.ok(client.checkIssued(new X509Certificate(a.current().ca)));
  });

  it('rotates the CA, ConfigMap, client Secret and server certificate with less than 90 days left, and says so', async () => {
    const ns = 'rotate';
    let now = new Date();
    const p = provider({ namespace: ns, now: () => now });
    await p.start();
    const before = p.current();
    const clientBefore = secretData(fake.get('secrets', ns, CLIENT_SECRET))['tls.crt'];
    const updates: TlsMaterial[] = [];
    p.on('updated', (m) => updates.push(m));

    now = new Date(now.getTime() + 270 * DAY); // 95 days left: nothing to do
    await p.check();
    assert.deepEqual(updates, []);
    assert.equal(p.current(), before);

    now = new Date(now.getTime() + 6 * DAY); // 89 days left
    await p.check();
    assert.equal(updates.length, 1);
    const rotated = p.current();
    assert.equal(updates[0], rotated);
    assert.notEqual(rotated.ca, before.ca);
    const newCA = new X509Certificate(rotated.ca);
    assert.equal(newCA.subject, `CN=flow-aggregator-ca@${Math.floor(now.getTime() / 1000)}`);
    assert.ok(new X509Certificate(rotated.cert).checkIssued(newCA));
    assert.equal(secretData(fake.get('secrets', ns, CA_SECRET))['tls.crt'], rotated.ca);
    assert.equal(configMapData(fake.get('configmaps', ns, CA_CONFIGMAP))!['ca.crt'], rotated.ca);
    const client = secretData(fake.get('secrets', ns, CLIENT_SECRET))['tls.crt']!;
    assert.notEqual(client, clientBefore);
    assert.ok(new X509Certificate(client).checkIssued(newCA));
  });

  it('gives two replicas rotating together one new CA', async () => {
    const ns = 'rotate-race';
    let now = new Date();
    const [a, b] = [provider({ namespace: ns, now: () => now }), provider({ namespace: ns, now: () => now })];
    await a.start();
    await b.start();
    now = new Date(now.getTime() + 300 * DAY);
    holdTogether(fake, (r) => r.method === 'GET' && r.namespace === ns && r.name === CA_SECRET);
    await Promise.all([a.check(), b.check()]);
    assert.equal(fake.count({ method: 'PUT', namespace: ns, name: CA_SECRET, status: 409 }), 1, 'the slower replica lost the update');
    assert.equal(a.current().ca, b.current().ca);
    assert.equal(secretData(fake.get('secrets', ns, CA_SECRET))['tls.crt'], a.current().ca);
  });

  it("follows another replica's rotation through the watch, without waiting for the periodic check", async () => {
    const ns = 'follow';
    let now = new Date();
    const [a, b] = [provider({ namespace: ns, now: () => now }), provider({ namespace: ns, now: () => now })];
    await a.start();
    await b.start();
    await until('watches open', () => fake.count({ watch: true, namespace: ns }) >= 6);
    const reads = fake.count({ method: 'GET', namespace: ns, watch: false });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(fake.count({ method: 'GET', namespace: ns, watch: false }), reads, 'what a replica wrote or read itself does not trigger a check');

    const followed = once(b, 'updated');
    now = new Date(now.getTime() + 300 * DAY);
    await a.check();
    const [material] = (await followed) as [TlsMaterial];
    assert.equal(material.ca, a.current().ca);
    assert.ok(new X509Certificate(material.cert).checkIssued(new X509Certificate(a.current().ca)));
  });

  it('repairs what is missing or invalid and leaves the rest alone', async () => {
    const ns = 'repair';
    const p = provider({ namespace: ns });
    await p.start();
    const caBefore = fake.get('secrets', ns, CA_SECRET);
    const updates: unknown[] = [];
    p.on('updated', (m) => updates.push(m));

    // A client certificate from another CA (e.g. restored from an old backup), and a deleted ConfigMap.
    const now = { now: new Date(), validityMs: 365 * DAY };
    const foreign = await issueClientCert(await issueCA(now), now);
    const client = fake.get('secrets', ns, CLIENT_SECRET)!;
    fake.remove('secrets', ns, CLIENT_SECRET);
    fake.seed('secrets', { ...client, metadata: { name: CLIENT_SECRET, namespace: ns }, data: { 'tls.crt': Buffer.from(foreign.cert).toString('base64'), 'tls.key': Buffer.from(foreign.key).toString('base64') } });
    fake.remove('configmaps', ns, CA_CONFIGMAP);
    await p.check();

    assert.deepEqual(fake.get('secrets', ns, CA_SECRET), caBefore, 'the CA was kept');
    assert.equal(configMapData(fake.get('configmaps', ns, CA_CONFIGMAP))!['ca.crt'], p.current().ca);
    const reissued = new X509Certificate(secretData(fake.get('secrets', ns, CLIENT_SECRET))['tls.crt']!);
    assert.ok(reissued.checkIssued(new X509Certificate(p.current().ca)));
    assert.deepEqual(updates, [], 'the listener has nothing to reload');

    // A ConfigMap someone annotated keeps its other keys when ca.crt is rewritten.
    const map = fake.get('configmaps', ns, CA_CONFIGMAP)!;
    fake.remove('configmaps', ns, CA_CONFIGMAP);
    fake.seed('configmaps', { metadata: { name: CA_CONFIGMAP, namespace: ns, labels: { team: 'net' } }, data: { 'ca.crt': 'stale', note: 'keep me' } });
    await p.check();
    const repaired = fake.get('configmaps', ns, CA_CONFIGMAP)!;
    assert.deepEqual(repaired.data, { 'ca.crt': configMapData(map)!['ca.crt'], note: 'keep me' });
    assert.deepEqual(repaired.metadata?.labels, { team: 'net', app: 'flow-aggregator' });
  });

  it('checks again on its own every checkInterval', async () => {
    const ns = 'periodic';
    let now = new Date();
    const p = provider({ namespace: ns, now: () => now, checkInterval: 20 });
    await p.start();
    const updated = once(p, 'updated');
    now = new Date(now.getTime() + 300 * DAY);
    const [material] = (await updated) as [TlsMaterial];
    assert.equal(configMapData(fake.get('configmaps', ns, CA_CONFIGMAP))!['ca.crt'], material.ca);
  });

  it("fails to start with a retriable error that carries the API server's reason", async () => {
    const broken = await FakeKubeApiServer.start();
    try {
      const denial = 'secrets "flow-aggregator-ca-tls" is forbidden: User "system:serviceaccount:fa:flowagg" cannot get resource "secrets"';
      broken.intercept(() => ({ code: 403, reason: 'Forbidden', message: denial }));
      const config = tlsSection.parse({ mode: 'k8s', namespace: NS });
      const p = createCertificateSource(config, { kubeConfig: kubeConfigFor(broken) });
      await assert.rejects(p.start(), (err) => isFlowaggError(err, TLS_STORE) && err.retriable && err.message.endsWith(`HTTP 403: ${denial}`));
    } finally {
      await broken.stop();
    }
  });
});
