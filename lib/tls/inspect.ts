// Decides whether stored certificates can still be used, with Node's crypto (OpenSSL) rather than
// forge: parsed, the key belongs to the certificate, signed by the CA, currently valid, and with more
// than `renewBeforeMs` left (Antrea rotates with less than 90 days left).
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';
import type { KeyPair } from './issue.js';

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
  const unreadable = goUnreadableName(pair.cert);
  if (unreadable !== undefined) return { usable: false, reason: unreadable };
  const notBefore = new Date(cert.validFrom);
  const notAfter = new Date(cert.validTo);
  if (now < notBefore) return { usable: false, reason: `not valid before ${notBefore.toISOString()}` };
  if (notAfter.getTime() - now.getTime() <= renewBeforeMs) return { usable: false, reason: `expires ${notAfter.toISOString()}, due for renewal` };
  const problem = specific(cert);
  return problem === undefined ? { usable: true, notAfter } : { usable: false, reason: problem };
}

/** What Go's crypto/x509 accepts in a PrintableString (X.680 §41.4, plus the '*' and '&' Go tolerates). */
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?*&]*$/;

/**
 * Why Go cannot parse the certificate's names, if it cannot: certificates issued by earlier versions of flowagg wrote
 * "flow-aggregator-ca@<time>" as a PrintableString, which Go refuses, so such certificates are reissued.
 * forge only reads the names here.
 */
export function goUnreadableName(pem: string): string | undefined {
  const cert = forge.pki.certificateFromPem(pem);
  for (const [which, attrs] of [['subject', cert.subject.attributes], ['issuer', cert.issuer.attributes]] as const) {
    for (const a of attrs) {
      if (a.valueTagClass === (forge.asn1.Type.PRINTABLESTRING as number) && typeof a.value === 'string' && !PRINTABLE.test(a.value)) {
        return `the ${which} ${a.shortName ?? a.name ?? a.type}=${a.value} is a PrintableString with characters it cannot hold, which Go refuses`;
      }
    }
  }
  return undefined;
}
