// How registry refusals and failed connections are told to the operator. The codes and bodies here are
// the ones a real registry gave (registry.functional.test.ts meets them over the wire).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { httpFailure, transportFailure } from './failure.js';

const user = { basicAuth: { username: 'flowagg', password: 'x' } };

test("an HTTP refusal carries the registry's words and error code, and says which key to change when that is known", () => {
  assert.deepEqual(httpFailure(409, { error_code: 409, message: 'incompatible schema: field x' }, {}), { message: 'HTTP 409 (error 409): incompatible schema: field x', retriable: false });
  assert.deepEqual(httpFailure(404, { error_code: 40403, message: 'Schema not found' }, {}), { message: 'HTTP 404 (error 40403): Schema not found', retriable: false });
  assert.match(httpFailure(401, { message: 'Unauthorized\n' }, {}).message, /^HTTP 401: Unauthorized; the registry wants credentials: set log\.schemaRegistry\.basicAuth\.username and \.password$/);
  assert.match(httpFailure(401, { error_code: 401, message: 'Unauthorized' }, user).message, /did not accept user "flowagg" and its password: check log\.schemaRegistry\.basicAuth$/);
  assert.match(httpFailure(403, {}, user).message, /^HTTP 403: no message; the registry does not let user "flowagg" do this/);
  assert.match(httpFailure(502, 'not an object', {}).message, /^HTTP 502: no message$/);
});

test('only what may pass is retriable: 5xx, 408, 429 and connections that failed for no named reason', () => {
  for (const status of [500, 503, 408, 429]) assert.equal(httpFailure(status, {}, {}).retriable, true, String(status));
  for (const status of [400, 401, 403, 404, 409, 422]) assert.equal(httpFailure(status, {}, {}).retriable, false, String(status));
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
  assert.deepEqual(transportFailure(refused, {}), { message: 'connect ECONNREFUSED 127.0.0.1:1', retriable: true });
});

test('TLS failures name the log.schemaRegistry.tls key that fixes them', () => {
  const err = (code: string) => Object.assign(new Error(`OpenSSL said ${code}`), { code });
  assert.deepEqual(transportFailure(err('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), {}), {
    message: "the registry's certificate does not verify (UNABLE_TO_VERIFY_LEAF_SIGNATURE): set log.schemaRegistry.tls.ca to the PEM file of the CA that signed it",
    retriable: false,
  });
  assert.match(transportFailure(err('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED'), {}).message, /without a client certificate: set log\.schemaRegistry\.tls\.cert and tls\.key \(ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED\)$/);
  assert.match(transportFailure(err('ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE'), { tls: { cert: 'c.pem', key: 'k.pem', rejectUnauthorized: true } }).message, /with the client certificate c\.pem: log\.schemaRegistry\.tls\.cert must be signed by a CA the registry trusts/);
  assert.match(transportFailure(err('ERR_TLS_CERT_ALTNAME_INVALID'), {}).message, /log\.schemaRegistry\.url must use a name the registry's certificate holds$/);
  assert.equal(transportFailure(err('CERT_HAS_EXPIRED'), {}).retriable, false);
});
