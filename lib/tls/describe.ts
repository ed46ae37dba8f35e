// What a person needs to know about a stored certificate (`flowagg certs`): who it names, for which
// names it is valid, until when, and whether the collector would still use it (inspect.ts's verdict).
import { X509Certificate } from 'node:crypto';
import { type Freshness, checkCA, checkLeaf } from './inspect.js';
import type { KeyPair } from './issue.js';
import type { Slot } from './provider.js';

export interface CertificateSummary {
  readonly slot: Slot;
  readonly subject: string;
  readonly issuer: string;
  /** "DNS:flow-aggregator.flow-aggregator.svc", "IP Address:127.0.0.1" */
  readonly sans: readonly string[];
  readonly notBefore: string;
  readonly notAfter: string;
  readonly sha256: string;
  /** "ok", or why the collector would reissue it (or, in files mode, refuse it). */
  readonly status: string;
}

export type SlotContent = { readonly slot: Slot; readonly pair: KeyPair | undefined };

export function describeCertificates(slots: readonly SlotContent[], freshness: Freshness, serverNames: readonly string[]): (CertificateSummary | { slot: Slot; status: string })[] {
  const ca = slots.find((s) => s.slot === 'ca')?.pair;
  return slots.map(({ slot, pair }) => {
    if (pair === undefined) return { slot, status: 'absent' };
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(pair.cert);
    } catch (err) {
      return { slot, status: `unreadable: ${(err as Error).message}` };
    }
    const verdict = slot === 'ca' ? checkCA(pair, freshness) : ca === undefined ? { usable: false as const, reason: 'no CA to check it against' } : checkLeaf(pair, ca, freshness, slot === 'server' ? serverNames : []);
    return {
      slot,
      subject: cert.subject.replaceAll('\n', ', '),
      issuer: cert.issuer.replaceAll('\n', ', '),
      sans: cert.subjectAltName === undefined ? [] : cert.subjectAltName.split(', '),
      notBefore: new Date(cert.validFrom).toISOString(),
      notAfter: new Date(cert.validTo).toISOString(),
      sha256: cert.fingerprint256,
      status: verdict.usable ? 'ok' : verdict.reason,
    };
  });
}
