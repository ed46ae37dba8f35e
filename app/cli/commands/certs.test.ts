import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseCommandArgs } from '../command.js';
import { runMain } from '../testing/run-main.js';
import { certsCommand, runCerts } from './certs.js';

async function certs(...argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runCerts(parseCommandArgs(certsCommand, argv), (s) => void (out += s), {});
  return { code, out };
}

interface Summary {
  slot: string;
  subject?: string;
  sans?: string[];
  notAfter?: string;
  status: string;
}

test('certs issue fills a directory as the collector would; show lists subjects, SANs and expiry; exit 1 when one is missing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-certs-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const empty = await certs('show', '--dir', dir, '-o', 'json');
  assert.equal(empty.code, 1);
  assert.deepEqual((JSON.parse(empty.out) as { certificates: Summary[] }).certificates.map((c) => c.status), ['absent', 'absent', 'absent']);

  const issued = await certs('issue', '--dir', dir, '--san', 'localhost', '--san', '127.0.0.1', '-o', 'json');
  assert.equal(issued.code, 0, issued.out);
  const list = (JSON.parse(issued.out) as { mode: string; certificates: Summary[] }).certificates;
  assert.deepEqual(list.map((c) => [c.slot, c.status]), [['ca', 'ok'], ['server', 'ok'], ['client', 'ok']]);
  assert.deepEqual(list[1]!.sans, ['DNS:flow-aggregator.flow-aggregator.svc', 'DNS:localhost', 'IP Address:127.0.0.1']);
  assert.match(list[0]!.subject!, /^CN=flow-aggregator-ca@/);
  assert.ok(Date.parse(list[2]!.notAfter!) > Date.now() + 300 * 86_400_000, 'valid for about a year');

  // A second issue keeps what is valid.
  const again = await certs('issue', '--dir', dir, '--san', 'localhost', '--san', '127.0.0.1', '-o', 'json');
  assert.deepEqual((JSON.parse(again.out) as { certificates: Summary[] }).certificates, list);

  const table = await certs('show', '--dir', dir);
  assert.equal(table.code, 0);
  assert.match(table.out, /^directory: .*\nCERT +SUBJECT +SANS +NOT AFTER +STATUS\nca +CN=flow-aggregator-ca@\d+/);

  rmSync(join(dir, 'client.key'));
  const broken = await certs('show', '--dir', dir, '-o', 'json');
  assert.equal(broken.code, 1);
  assert.equal((JSON.parse(broken.out) as { certificates: Summary[] }).certificates[2]!.status, 'absent');
  // The server certificate must carry every name the configuration asks for.
  const config = join(dir, 'flowagg.yaml');
  writeFileSync(config, 'ingest:\n  tls:\n    extraSANs: [collector.example]\n');
  const renamed = await certs('show', '--dir', dir, '--config', config, '-o', 'json');
  assert.equal((JSON.parse(renamed.out) as { certificates: Summary[] }).certificates[1]!.status, 'no subject alternative name collector.example');
});

test('certs: a wrong command line exits 2', async () => {
  assert.equal((await runMain(['certs'])).code, 2);
  assert.equal((await runMain(['certs', 'renew'])).code, 2);
  assert.equal((await runMain(['certs', 'show', '--san', 'x'])).code, 2);
});
