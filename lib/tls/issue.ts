// Certificate issuance with node-forge, the way Antrea's flow aggregator issues them (reference §6.5):
// RSA-2048 keys, validity starting one hour in the past (clock skew between Nodes) and lasting the
// configured period, a self-signed CA used for both server and client authentication, a server
// certificate whose SANs are the Service name and flowAggregatorAddress, and a client certificate for
// the agents. forge only signs here; every check is made with Node's crypto (see inspect.ts), because
// forge's verification code has a history of signature-forgery bugs.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

/** A certificate and its private key, both PEM. */
export interface KeyPair {
  cert: string;
  key: string;
}

export interface Validity {
  now: Date;
  /** Length of validity from notBefore (now − 1 h). */
  validityMs: number;
}

const CLOCK_SKEW_MS = 3_600_000;
const { pki } = forge;
/**
 * Names are UTF8String, as Go writes them: forge's default, PrintableString, has no '@', and Go's
 * crypto/x509 refuses a certificate whose PrintableString holds one ("invalid PrintableString"), which
 * would keep every Antrea agent out. (The type declares the tag as asn1.Class; it is an asn1.Type.)
 */
const UTF8_STRING = forge.asn1.Type.UTF8 as unknown as forge.asn1.Class;

export async function issueCA({ now, validityMs }: Validity): Promise<KeyPair> {
  const keys = await generateKeys();
  const cert = newCertificate(keys.publicKey, `flow-aggregator-ca@${unixSeconds(now)}`, now, validityMs);
  cert.setIssuer(cert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', critical: true, digitalSignature: true, keyEncipherment: true, keyCertSign: true, cRLSign: true },
    { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { cert: pki.certificateToPem(cert), key: pki.privateKeyToPem(keys.privateKey) };
}

/** The collector's certificate; names that parse as IP addresses become IP SANs, the others DNS SANs. */
export function issueServerCert(ca: KeyPair, names: readonly string[], validity: Validity): Promise<KeyPair> {
  const altNames = names.map((n) => (isIP(n) === 0 ? { type: 2, value: n } : { type: 7, ip: n }));
  return issueLeaf(ca, `flow-aggregator@${unixSeconds(validity.now)}`, validity, [
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames },
  ]);
}

/** The certificate Antrea agents present to the collector. */
export function issueClientCert(ca: KeyPair, validity: Validity): Promise<KeyPair> {
  return issueLeaf(ca, `flow-aggregator-client-certificate@${unixSeconds(validity.now)}`, validity, [{ name: 'extKeyUsage', clientAuth: true }]);
}

async function issueLeaf(ca: KeyPair, commonName: string, { now, validityMs }: Validity, extensions: object[]): Promise<KeyPair> {
  const caCert = pki.certificateFromPem(ca.cert);
  const keys = await generateKeys();
  const cert = newCertificate(keys.publicKey, commonName, now, validityMs);
  // A certificate that outlives its CA is useless; ending with it makes both rotate together.
  if (cert.validity.notAfter > caCert.validity.notAfter) cert.validity.notAfter = caCert.validity.notAfter;
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', critical: true, digitalSignature: true, keyEncipherment: true },
    ...extensions,
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(pki.privateKeyFromPem(ca.key), forge.md.sha256.create());
  return { cert: pki.certificateToPem(cert), key: pki.privateKeyToPem(keys.privateKey) };
}

/** With a callback, forge generates the key with Node's asynchronous crypto.generateKeyPair, off the event loop. */
function generateKeys(): Promise<forge.pki.rsa.KeyPair> {
  return new Promise((resolve, reject) => {
    pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 }, (err, keys) => (err ? reject(err as Error) : resolve(keys)));
  });
}

function newCertificate(publicKey: forge.pki.PublicKey, commonName: string, now: Date, validityMs: number): forge.pki.Certificate {
  const cert = pki.createCertificate();
  cert.publicKey = publicKey;
  // 127 random bits; the first octet in 0x40-0x7f keeps the DER integer positive and minimally encoded.
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x40;
  cert.serialNumber = serial.toString('hex');
  const notBefore = new Date(now.getTime() - CLOCK_SKEW_MS);
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = new Date(notBefore.getTime() + validityMs);
  cert.setSubject([{ name: 'commonName', value: commonName, valueTagClass: UTF8_STRING }]);
  return cert;
}

function unixSeconds(d: Date): number {
  return Math.floor(d.getTime() / 1000);
}
