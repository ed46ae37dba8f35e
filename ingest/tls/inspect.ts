// Decides whether stored certificates can still be used, with Node's crypto (OpenSSL) rather than
// forge: parsed, the key belongs to the certificate, signed by the CA, currently valid, and with more
// than `renewBeforeMs` left (Antrea rotates with less than 90 days left).
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { isIP } from 'node:net';
import { type KeyPair } from './issue.js';

export type Verdict = { usable: true; notAfter: Date } | { usable: false; reason: string };

export interface Freshness {
  now: Date;
  renewBeforeMs: number;
}

export function checkCA(pair: KeyPair | undefined, freshness: Freshness): Verdict {
  return inspect(pair, freshness, (cert) => {
    if (!cert.ca) return 'not a CA certificate';
    if (!cert.checkIssued(cert) || !cert.verify(cert.publicKey)) return 'not self-signed';
    return undefined;
  });
}

/** A leaf certificate issued by `ca`; when `names` are given, each must be among its SANs. */
export function checkLeaf(pair: KeyPair | undefined, ca: KeyPair, freshness: Freshness, names: readonly string[] = []): Verdict {
  const caCert = new X509Certificate(ca.cert);
  return inspect(pair, freshness, (cert) => {
    if (!cert.checkIssued(caCert) || !cert.verify(caCert.publicKey)) return 'not issued by the current CA';
    const missing = names.find((n) => (isIP(n) === 0 ? cert.checkHost(n, { subject: 'never' }) === undefined : cert.checkIP(n) === undefined));
    return missing === undefined ? undefined : `no subject alternative name ${missing}`;
  });
}

function inspect(pair: KeyPair | undefined, { now, renewBeforeMs }: Freshness, specific: (cert: X509Certificate) => string | undefined): Verdict {
  if (pair === undefined) return { usable: false, reason: 'absent' };
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pair.cert);
    if (!cert.checkPrivateKey(createPrivateKey(pair.key))) return { usable: false, reason: 'the key does not match the certificate' };
  } catch (err) {
    return { usable: false, reason: `unreadable: ${(err as Error).message}` };
  }
  const notBefore = new Date(cert.validFrom);
  const notAfter = new Date(cert.validTo);
  if (now < notBefore) return { usable: false, reason: `not valid before ${notBefore.toISOString()}` };
  if (notAfter.getTime() - now.getTime() <= renewBeforeMs) return { usable: false, reason: `expires ${notAfter.toISOString()}, due for renewal` };
  const problem = specific(cert);
  return problem === undefined ? { usable: true, notAfter } : { usable: false, reason: problem };
}
