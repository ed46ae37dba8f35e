import assert from 'node:assert/strict';
import { getCiphers } from 'node:tls';
import { test } from 'node:test';
import { parseCipherSuites, parseMinVersion } from './tls-settings.js';

test("Go's cipher suite names become OpenSSL's, each one Node's TLS offers", () => {
  const parsed = parseCipherSuites('TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305,TLS_AES_256_GCM_SHA384');
  assert.deepEqual(parsed, { ok: true, value: 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305:TLS_AES_256_GCM_SHA384' });
  const offered = new Set(getCiphers());
  for (const name of (parsed.ok ? parsed.value! : '').split(':')) assert.ok(offered.has(name.toLowerCase()), name);
  assert.deepEqual(parseCipherSuites(''), { ok: true, value: undefined });
  assert.deepEqual(parseCipherSuites(undefined), { ok: true, value: undefined });
});

test('an unknown cipher suite or TLS version is refused with the names that work', () => {
  const suites = parseCipherSuites('TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,ECDHE-RSA-AES128-GCM-SHA256');
  assert.equal(suites.ok, false);
  assert.match(suites.ok ? '' : suites.message, /^"ECDHE-RSA-AES128-GCM-SHA256" is not a cipher suite .*give Go's names.*TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256/);
  assert.deepEqual(parseMinVersion('VersionTLS13'), { ok: true, value: 'TLSv1.3' });
  assert.deepEqual(parseMinVersion(''), { ok: true, value: 'TLSv1.2' });
  const version = parseMinVersion('TLSv1.3');
  assert.equal(version.ok, false);
  assert.match(version.ok ? '' : version.message, /"TLSv1.3" is not a TLS version: one of VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13/);
});
