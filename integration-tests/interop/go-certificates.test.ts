// Go reads flowagg's certificates (issue 9): the CA, server and client certificates ingest issues, and
// their replacements after a rotation, are parsed and verified by Go's crypto/x509, and a Go client, as an
// Antrea Agent dials, completes a TLS handshake with the IPFIX-over-TLS listener and, with ALPN h2, with the
// gRPC collector.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ingestConfig } from '../../ingest/config.js';
import { createIngest } from '../../ingest/index.js';
import { DirectoryCertificateStore } from '../../lib/tls/directory-store.js';
import { CertificateProvider } from '../../lib/tls/provider.js';
import { openEmbeddedLog } from '../../lib/log/embedded/index.js';
import { goTlsCheck, requireGoProgram, type TlsCheckResult } from '../harness/go.js';

const DAY = 86_400_000;
const SERVICE_NAME = 'flow-aggregator.flow-aggregator.svc';

function files(dir: string) {
  return { ca: join(dir, 'ca.crt'), server: join(dir, 'server.crt'), client: { cert: join(dir, 'client.crt'), key: join(dir, 'client.key') } };
}

function assertAllOk(results: readonly TlsCheckResult[], expectedChecks: number): void {
  assert.equal(results.length, expectedChecks, JSON.stringify(results));
  for (const r of results) assert.ok(r.ok, `Go: ${r.check} ${r.target}: ${r.error}`);
}

test('Go parses and verifies the issued CA, server and client certificates, before and after rotation', async (t) => {
  const program = await requireGoProgram(t, 'tlscheck');
  if (program === undefined) return;
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-go-certs-'));
  const provider = (now: Date) =>
    new CertificateProvider({
      store: new DirectoryCertificateStore(dir), serverNames: [SERVICE_NAME, '127.0.0.1'], validityMs: 365 * DAY, renewBeforeMs: 90 * DAY,
      checkIntervalMs: 3_600_000, now: () => now,
    });
  // Issued 300 days ago: 65 days left, so a check today renews all three.
  const old = provider(new Date(Date.now() - 300 * DAY));
  await old.start();
  old.stop();
  const before = readFileSync(join(dir, 'ca.crt'), 'utf8');
  const beforeResults = await goTlsCheck(program, { ...files(dir), serverName: SERVICE_NAME });
  // 65 days left: still valid, so Go parses and verifies them.
  assertAllOk(beforeResults, 5);
  assert.match(beforeResults[0]!.subject!, /^CN=flow-aggregator-ca@\d+$/);

  const current = provider(new Date());
  await current.start();
  current.stop();
  assert.notEqual(readFileSync(join(dir, 'ca.crt'), 'utf8'), before, 'the CA was rotated');
  const after = await goTlsCheck(program, { ...files(dir), serverName: SERVICE_NAME });
  assertAllOk(after, 5);
  assert.notEqual(after[0]!.subject, beforeResults[0]!.subject);
  assert.match(after.find((r) => r.check === 'verify' && r.target.endsWith('client.crt'))!.subject!, /^CN=flow-aggregator-client-certificate@\d+$/);
});

test('a Go client with the issued client certificate completes TLS handshakes with the IPFIX-over-TLS and gRPC collectors', async (t) => {
  const program = await requireGoProgram(t, 'tlscheck');
  if (program === undefined) return;
  const root = mkdtempSync(join(tmpdir(), 'flowagg-go-tls-'));
  const log = await openEmbeddedLog({ dir: join(root, 'log'), fsync: { policy: 'interval' } });
  t.after(() => log.close());
  const certDir = join(root, 'tls');
  const config = ingestConfig.parse({ aggregatorTransportProtocol: 'tls', ingest: { host: '127.0.0.1', port: 0, grpc: { port: 0 }, tls: { mode: 'directory', dir: certDir } } });
  const ingest = createIngest(config, { log });
  await ingest.start();
  t.after(() => ingest.stop());
  const results = await goTlsCheck(program, { ...files(certDir), serverName: SERVICE_NAME, dial: [`127.0.0.1:${ingest.ports.tls}`] });
  assertAllOk(results, 6);
  const handshake = results.find((r) => r.check === 'handshake')!;
  assert.match(handshake.version!, /^TLS 1\.[23]$/);
  assert.match(handshake.subject!, /^CN=flow-aggregator@\d+$/);
  const grpc = await goTlsCheck(program, { ...files(certDir), serverName: SERVICE_NAME, alpn: 'h2', dial: [`127.0.0.1:${ingest.ports.grpc}`] });
  assertAllOk(grpc, 6);
  assert.equal(grpc.find((r) => r.check === 'handshake')!.alpn, 'h2');
});
