// node:tls server options for the collectors: mutual TLS as Antrea runs it (RequireAndVerifyClientCert,
// TLS 1.2 minimum): a client must present a certificate signed by our CA, or the handshake fails.
// Also valid for server.setSecureContext() when the certificates rotate.
import type { TlsOptions } from 'node:tls';
import type { TlsMaterial } from './provider.js';

export function tlsServerOptions(material: TlsMaterial, minVersion: 'TLSv1.2' | 'TLSv1.3' = 'TLSv1.2'): TlsOptions {
  return {
    key: material.key,
    cert: material.cert,
    ca: material.ca,
    requestCert: true,
    rejectUnauthorized: true,
    minVersion,
  };
}
