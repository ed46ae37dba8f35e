import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import forge from 'node-forge';
import { checkCA, checkLeaf, goUnreadableName } from './inspect.js';
import { issueCA, issueClientCert, issueServerCert } from './issue.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

describe('certificate issuance', async () => {
  const now = new Date();
  const validity = { now, validityMs: YEAR };
  const ca = await issueCA(validity);
  const caX = new X509Certificate(ca.cert);
  const names = ['flow-aggregator.flows.svc', '10.0.0.7', 'localhost', '::1'];
  const server = await issueServerCert(ca, names, validity);
  const client = await issueClientCert(ca, validity);

  it('issues a self-signed RSA-2048 CA valid one year from one hour ago, for client and server auth', async () => {
    assert.equal(caX.ca, true);
    assert.ok(caX.checkIssued(caX) && caX.verify(caX.publicKey));
    assert.equal(caX.subject, `CN=flow-aggregator-ca@${Math.floor(now.getTime() / 1000)}`);
    assert.equal(caX.publicKey.asymmetricKeyDetails?.modulusLength, 2048);
    assert.deepEqual(caX.keyUsage?.sort(), [SERVER_AUTH, CLIENT_AUTH]);
    const notBefore = Date.parse(caX.validFrom);
    assert.ok(Math.abs(notBefore - (now.getTime() - HOUR)) < 1000, `notBefore ${caX.validFrom}`);
    assert.equal(Date.parse(caX.validTo) - notBefore, YEAR);
  });

  it('issues a server certificate signed by the CA with the Service name and addresses as SANs', async () => {
    const x = new X509Certificate(server.cert);
    assert.equal(x.ca, false);
    assert.ok(x.checkIssued(caX) && x.verify(caX.publicKey));
    assert.deepEqual(x.keyUsage, [SERVER_AUTH]);
    assert.equal(x.subjectAltName, 'DNS:flow-aggregator.flows.svc, IP Address:10.0.0.7, DNS:localhost, IP Address:0:0:0:0:0:0:0:1');
    assert.equal(x.checkHost('flow-aggregator.flows.svc'), 'flow-aggregator.flows.svc');
    assert.equal(x.checkIP('10.0.0.7'), '10.0.0.7');
    assert.equal(x.checkHost('10.0.0.7'), undefined, 'an address must not be a DNS name');
    assert.equal(x.validTo, caX.validTo);
  });

  it('issues a client certificate for the agents', async () => {
    const x = new X509Certificate(client.cert);
    assert.ok(x.checkIssued(caX) && x.verify(caX.publicKey));
    assert.deepEqual(x.keyUsage, [CLIENT_AUTH]);
    assert.match(x.subject, /^CN=flow-aggregator-client-certificate@\d+$/);
    assert.notEqual(x.serialNumber, new X509Certificate(server.cert).serialNumber);
  });

  it('writes every name as a UTF8String, which Go reads, never as a PrintableString, which cannot hold "@"', async () => {
    for (const pem of [ca.cert, server.cert, client.cert]) {
      const der = new X509Certificate(pem).raw;
      const cn = /CN=(.*)$/.exec(new X509Certificate(pem).subject)![1]!;
      const utf8 = Buffer.concat([Buffer.from([0x0c, cn.length]), Buffer.from(cn)]);
      assert.ok(der.includes(utf8), `${cn} is a UTF8String`);
      assert.equal(goUnreadableName(pem), undefined);
    }
  });

  it('never lets a certificate outlive its CA', async () => {
    const shortCA = await issueCA({ now, validityMs: 30 * DAY });
    const leaf = new X509Certificate((await issueClientCert(shortCA, validity)).cert);
    assert.equal(leaf.validTo, new X509Certificate(shortCA.cert).validTo);
  });
});

describe('certificate inspection', async () => {
  const now = new Date();
  const ca = await issueCA({ now, validityMs: YEAR });
  const client = await issueClientCert(ca, { now, validityMs: YEAR });
  const fresh = { now, renewBeforeMs: 90 * DAY };

  it('accepts fresh certificates and reports their expiry', async () => {
    const verdict = checkCA(ca, fresh);
    assert.ok(verdict.usable);
    assert.equal(verdict.notAfter.getTime(), Date.parse(new X509Certificate(ca.cert).validTo));
    assert.ok(checkLeaf(client, ca, fresh).usable);
  });

  it('rejects absent, unreadable, mismatched, foreign, expiring and future certificates', async () => {
    const other = await issueCA({ now, validityMs: YEAR });
    const reason = (v: ReturnType<typeof checkCA>) => (v.usable ? 'usable' : v.reason);
    assert.equal(reason(checkCA(undefined, fresh)), 'absent');
    assert.match(reason(checkCA({ cert: 'garbage', key: ca.key }, fresh)), /^unreadable/);
    assert.equal(reason(checkCA({ cert: ca.cert, key: other.key }, fresh)), 'the key does not match the certificate');
    assert.equal(reason(checkCA(client, fresh)), 'not a CA certificate');
    assert.equal(reason(checkLeaf(client, other, fresh)), 'not issued by the current CA');
    assert.match(reason(checkCA(ca, { now: new Date(now.getTime() + 276 * DAY), renewBeforeMs: 90 * DAY })), /due for renewal/);
    assert.ok(checkCA(ca, { now: new Date(now.getTime() + 270 * DAY), renewBeforeMs: 90 * DAY }).usable);
    assert.match(reason(checkCA(ca, { now: new Date(now.getTime() - 2 * HOUR), renewBeforeMs: 0 })), /not valid before/);
  });

  it('rejects a certificate whose PrintableString name holds an "@" (as issued before), so that it is reissued', async () => {
    const keys = forge.pki.rsa.generateKeyPair({ bits: 1024 });
    const cert = forge.pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = '01';
    cert.validity.notBefore = new Date(now.getTime() - HOUR);
    cert.validity.notAfter = new Date(now.getTime() + YEAR);
    cert.setSubject([{ name: 'commonName', value: 'flow-aggregator-ca@1700000000' }]);
    cert.setIssuer(cert.subject.attributes);
    cert.setExtensions([{ name: 'basicConstraints', cA: true }]);
    cert.sign(keys.privateKey, forge.md.sha256.create());
    const old = { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
    const verdict = checkCA(old, fresh);
    assert.equal(verdict.usable, false);
    assert.match((verdict as { reason: string }).reason, /subject CN=flow-aggregator-ca@1700000000 is a PrintableString .* Go refuses/);
  });

  it('rejects a server certificate that lacks a wanted name', async () => {
    const server = await issueServerCert(ca, ['a.ns.svc', '127.0.0.1'], { now, validityMs: YEAR });
    assert.ok(checkLeaf(server, ca, fresh, ['a.ns.svc', '127.0.0.1']).usable);
    const verdict = checkLeaf(server, ca, fresh, ['a.ns.svc', '192.0.2.1']);
    assert.deepEqual(verdict, { usable: false, reason: 'no subject alternative name 192.0.2.1' });
  });
});
