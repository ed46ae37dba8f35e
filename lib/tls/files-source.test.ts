import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isFlowaggError } from '../errors.js';
import { tlsSection } from './config.js';
import { TLS_INVALID_MATERIAL } from './errors.js';
import { FilesCertificateSource } from './files-source.js';
import { createCertificateSource } from './index.js';
import { type KeyPair, issueCA, issueServerCert } from './issue.js';

const validity = { now: new Date(), validityMs: 365 * 86_400_000 };

function writePair(dir: string, pair: KeyPair, ca: KeyPair): void {
  writeFileSync(join(dir, 'tls.crt'), pair.cert);
  writeFileSync(join(dir, 'tls.key'), pair.key);
  writeFileSync(join(dir, 'ca.crt'), ca.cert);
}

describe('certificates from files', async () => {
  const ca = await issueCA(validity);
  const first = await issueServerCert(ca, ['collector.example.org'], validity);

  function source(dir: string, checkInterval = 3_600_000) {
    const config = tlsSection.parse({ mode: 'files', certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), caFile: join(dir, 'ca.crt'), checkInterval });
    const s = createCertificateSource(config);
    assert.ok(s instanceof FilesCertificateSource);
    return s;
  }

  it('serves the files and reloads them when they change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowagg-files-'));
    writePair(dir, first, ca);
    const s = source(dir, 20);
    await s.start();
    try {
      assert.deepEqual(s.current(), { ...first, ca: ca.cert });
      const second = await issueServerCert(ca, ['collector.example.org'], validity);
      const updated = once(s, 'updated');
      writePair(dir, second, ca);
      assert.deepEqual((await updated)[0], { ...second, ca: ca.cert });
    } finally {
      s.stop();
    }
  });

  it('refuses a key that does not belong to the certificate, and keeps serving the old files on reload', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowagg-files-'));
    writePair(dir, { cert: first.cert, key: ca.key }, ca);
    await assert.rejects(source(dir).start(), (e) => isFlowaggError(e, TLS_INVALID_MATERIAL) && /does not belong/.test(e.message));

    writePair(dir, first, ca);
    const s = source(dir);
    await s.start();
    s.stop();
    writeFileSync(join(dir, 'tls.key'), 'not a key');
    await s.reload();
    assert.deepEqual(s.current(), { ...first, ca: ca.cert });
  });

  it('names the file it cannot read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowagg-files-'));
    await assert.rejects(source(dir).start(), (e) => isFlowaggError(e, TLS_INVALID_MATERIAL) && e.message.includes(join(dir, 'tls.crt')));
  });
});
