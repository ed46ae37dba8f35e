import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { closedPort } from '../../../exporters/testing/records.js';
import { exportUntil, UNREACHABLE_SINCE } from '../testing/export-until.js';
import { runMain as capture } from '../testing/run-main.js';

function configFile(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-export-cli-'));
  const file = join(dir, 'flowagg.yaml');
  writeFileSync(file, `log:\n  embedded:\n    dir: ${join(dir, 'log')}\napiServer:\n  apiPort: 0\n  protocol: http\n${yaml}`);
  return file;
}

test('flowagg export names the exporter kinds when given an unknown one', async () => {
  const { code, stderr } = await capture(['export', 'carrier-pigeon', '--config', configFile('')]);
  assert.equal(code, 1);
  assert.match(stderr, /no exporter "carrier-pigeon": the exporters are ipfix/);
});

test('a bad flowCollector section fails flowagg run and flowagg export at start, naming the keys', async () => {
  const file = configFile('flowCollector:\n  enable: true\n  address: "https://collector:4739"\n  maxIPFIXMsgSize: 10\nmode: Sideways\n');
  for (const argv of [['run'], ['export', 'ipfix']]) {
    const { code, stderr } = await capture([...argv, '--config', file]);
    assert.equal(code, 1);
    assert.match(stderr, /flowCollector\.address \(.*flowagg\.yaml:\d+\): "https:\/\/collector:4739" is a URL/);
    assert.match(stderr, /flowCollector\.maxIPFIXMsgSize \(.*\): must be 0 \(automatic\) or between 512 and 65535/);
    assert.match(stderr, /mode \(.*\): "Sideways" is not a mode \(Aggregate or Proxy\)/);
  }
});

test('flowagg export ipfix with an unreachable collector runs on, ready, naming flowCollector.address in /readyz', async () => {
  const port = await closedPort();
  const { readyz, code } = await exportUntil(mkdtempSync(join(tmpdir(), 'flowagg-export-cli-')), 'ipfix', 'flowCollector', { 'flowCollector.address': `127.0.0.1:${port}:tcp`, 'flowCollector.connectTimeout': 2000 }, new RegExp(`${UNREACHABLE_SINCE}cannot reach the IPFIX collector 127\\.0\\.0\\.1:${port} \\(flowCollector\\.address\\)`));
  assert.equal(readyz.status, 200);
  assert.equal(readyz.checks['export.ipfix']!.ready, true);
  assert.equal(code, 0, 'stopped cleanly');
});

test('flowagg export ipfix without an address is refused, enabled or not: the command uses the section', async () => {
  const { code, stderr } = await capture(['export', 'ipfix', '--config', configFile('flowCollector:\n  enable: false\n')]);
  assert.equal(code, 1);
  assert.match(stderr, /flowCollector\.address \([^)]*\): is required/);
});
