// What a schema registry's refusal or a failed connection means to whoever configured log.schemaRegistry:
// the registry's own words, the key to change when the cause is known, and whether trying again can help
// (a registry that is restarting, yes; a wrong password or an incompatible schema, no).
import { errorMessage } from '../../errors.js';
import type { SchemaRegistryConfig } from './config.js';

export interface RegistryFailure {
  readonly message: string;
  readonly retriable: boolean;
}

type Credentials = Pick<SchemaRegistryConfig, 'basicAuth' | 'tls'>;

/** An answer outside 2xx: Confluent's `{error_code, message}`, or the plain text some registries send for 401. */
export function httpFailure(status: number, body: unknown, config: Credentials): RegistryFailure {
  const e = (typeof body === 'object' && body !== null ? body : {}) as { error_code?: unknown; message?: unknown };
  const code = typeof e.error_code === 'number' ? ` (error ${e.error_code})` : '';
  const said = typeof e.message === 'string' && e.message.trim() !== '' ? e.message.trim() : 'no message';
  return { message: `HTTP ${status}${code}: ${said}${httpHint(status, config)}`, retriable: status >= 500 || status === 408 || status === 429 };
}

function httpHint(status: number, { basicAuth }: Credentials): string {
  const user = basicAuth && JSON.stringify(basicAuth.username);
  if (status === 401) {
    return user === undefined
      ? '; the registry wants credentials: set log.schemaRegistry.basicAuth.username and .password'
      : `; the registry did not accept user ${user} and its password: check log.schemaRegistry.basicAuth`;
  }
  if (status === 403) return `; the registry does not let ${user === undefined ? 'anonymous clients' : `user ${user}`} do this: grant it write access to the subject`;
  return '';
}

/** Node's codes for a registry certificate that does not chain to a CA it trusts. */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);
/** The TLS alerts a registry that verifies client certificates sends when it gets none, or one it does not trust. */
const CLIENT_CERT_REFUSED = /^ERR_SSL_(TLSV13_ALERT_CERTIFICATE_REQUIRED|SSLV3_ALERT_BAD_CERTIFICATE|TLSV1_ALERT_UNKNOWN_CA|SSLV3_ALERT_CERTIFICATE_UNKNOWN|SSLV3_ALERT_HANDSHAKE_FAILURE)$/;

/** A request that got no answer: the connection, TLS, or the socket failed. */
export function transportFailure(err: unknown, { tls }: Credentials): RegistryFailure {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && UNTRUSTED.has(code)) {
    return { message: `the registry's certificate does not verify (${code}): set log.schemaRegistry.tls.ca to the PEM file of the CA that signed it`, retriable: false };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return { message: `${errorMessage(err)}: log.schemaRegistry.url must use a name the registry's certificate holds`, retriable: false };
  if (code === 'CERT_HAS_EXPIRED') return { message: "the registry's certificate has expired (CERT_HAS_EXPIRED)", retriable: false };
  if (typeof code === 'string' && CLIENT_CERT_REFUSED.test(code)) {
    const what = tls?.cert === undefined
      ? 'without a client certificate: set log.schemaRegistry.tls.cert and tls.key'
      : `with the client certificate ${tls.cert}: log.schemaRegistry.tls.cert must be signed by a CA the registry trusts`;
    return { message: `the registry refused the TLS connection ${what} (${code})`, retriable: false };
  }
  return { message: errorMessage(err), retriable: true };
}
