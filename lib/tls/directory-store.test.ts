import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tlsSection } from './config.js';
import { createCertificateSource } from './index.js';
import { CertificateProvider, type TlsMaterial } from './provider.js';

const DAY = 86_400_000;

function provider(dir: string, opts: { now?: () => Date; extraSANs?: string[] } = {}): CertificateProvider {
  const config = tlsSection.parse({ mode: 'directory', dir, namespace: 'fa', extraSANs: opts.extraSANs ?? ['localhost', '127.0.0.1'] });
  const source = createCertificateSource(config, opts.now ? { now: opts.now } : {});
  assert.ok(source instanceof CertificateProvider);
  return source;
}

const read = (dir: string, name: string) => readFileSync(join(dir, name), 'utf8');

describe('certificates in a directory', () => {
  it('writes the CA, server and client pairs, keys readable by the owner only', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'flowagg-tls-')), 'nested', 'tls');
    const p = provider(dir);
    await p.start();
    p.stop();
    assert.deepEqual(readdirSync(dir).sort(), ['ca.crt', 'ca.key', 'client.crt', 'client.key', 'server.crt', 'server.key']);
    for (const key of ['ca.key', 'client.key', 'server.key']) assert.equal(statSync(join(dir, key)).mode & 0o777, 0o600, key);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    const m = p.current();
    assert.equal(m.ca, read(dir, 'ca.crt'));
    assert.equal(m.cert, read(dir, 'server.crt'));
    assert.equal(m.key, read(dir, 'server.key'));
    const ca = new X509Certificate(m.ca);
    const server = new X509Certificate(m.cert);
    assert.equal(server.subjectAltName, 'DNS:flow-aggregator.fa.svc, DNS:localhost, IP Address:127.0.0.1');
    assert.ok(server.checkIssued(ca) && new X509Certificate(read(dir, 'client.crt')).checkIssued(ca));
  });

  it('reuses everything after a restart, and reissues only the server certificate when its names change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowagg-tls-'));
    const first = provider(dir);
    await first.start();
    first.stop();
    const before = Object.fromEntries(readdirSync(dir).map((f) => [f, read(dir, f)]));

    const second = provider(dir);
    await second.start();
    second.stop();
    assert.deepEqual(second.current(), first.current());
    assert.deepEqual(Object.fromEntries(readdirSync(dir).map((f) => [f, read(dir, f)])), before);

    const renamed = provider(dir, { extraSANs: ['collector.example.org'] });
    await renamed.start();
    renamed.stop();
    assert.equal(renamed.current().ca, before['ca.crt']);
    assert.equal(read(dir, 'client.crt'), before['client.crt']);
    assert.notEqual(renamed.current().cert, before['server.crt']);
    assert.equal(new X509Certificate(renamed.current().cert).checkHost('collector.example.org'), 'collector.example.org');
  });

  it('replaces a pair whose key and certificate do not match (a torn write)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowagg-tls-'));
    const first = provider(dir);
    await first.start();
    first.stop();
    writeFileSync(join(dir, 'client.key'), read(dir, 'server.key'));
    const second = provider(dir);
    await second.start();
    second.stop();
    assert.equal(second.current().ca, first.current().ca);
    assert.ok(new X509Certificate(read(dir, 'client.crt')).checkPrivateKey(createPrivateKey(read(dir, 'client.key'))));
  });

  it('rotates with less than 90 days left and emits updated', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowagg-tls-'));
    let now = new Date();
    const p = provider(dir, { now: () => now });
    await p.start();
    p.stop();
    const before = p.current();
    const updates: TlsMaterial[] = [];
    p.on('updated', (m) => updates.push(m));
    now = new Date(now.getTime() + 280 * DAY);
    await p.check();
    assert.equal(updates.length, 1);
    assert.notEqual(updates[0]!.ca, before.ca);
    assert.equal(read(dir, 'ca.crt'), updates[0]!.ca);
    assert.ok(new X509Certificate(read(dir, 'client.crt')).checkIssued(new X509Certificate(updates[0]!.ca)));
  });
});
