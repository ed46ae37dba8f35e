// Antrea's apiServer.tlsCipherSuites and tlsMinVersion, written with Go's names (crypto/tls, as the
// Kubernetes flags take them), turned into what node:tls takes: OpenSSL cipher names and protocol names.
// Go's TLS 1.3 suites cannot be chosen (Go ignores them); Node would take them, and does here.
import type { SecureVersion } from 'node:tls';

/** Go's cipher suite names (tls.CipherSuiteName, with the aliases Go accepts) and OpenSSL's names. */
const GO_CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
};

const GO_VERSIONS: Readonly<Record<string, SecureVersion>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/** "" or unset: Node's default list. Otherwise the OpenSSL names, colon-separated, in the order given. */
export function parseCipherSuites(text: string | undefined): Parsed<string | undefined> {
  const names = (text ?? '').split(',').map((n) => n.trim()).filter((n) => n !== '');
  if (names.length === 0) return { ok: true, value: undefined };
  const unknown = names.filter((n) => GO_CIPHER_SUITES[n] === undefined);
  if (unknown.length > 0) {
    return { ok: false, message: `${unknown.map((n) => `"${n}"`).join(', ')} ${unknown.length === 1 ? 'is not a cipher suite' : 'are not cipher suites'} Node's TLS offers; give Go's names, comma-separated, from: ${Object.keys(GO_CIPHER_SUITES).join(', ')}` };
  }
  return { ok: true, value: [...new Set(names.map((n) => GO_CIPHER_SUITES[n]!))].join(':') };
}

/** "" or unset: TLS 1.2, as Antrea. */
export function parseMinVersion(text: string | undefined): Parsed<SecureVersion> {
  const name = (text ?? '').trim();
  if (name === '') return { ok: true, value: 'TLSv1.2' };
  const version = GO_VERSIONS[name];
  return version === undefined ? { ok: false, message: `"${name}" is not a TLS version: one of ${Object.keys(GO_VERSIONS).join(', ')}` } : { ok: true, value: version };
}
