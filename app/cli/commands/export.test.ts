import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
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

test('flowagg export ipfix with an unreachable collector exits 1 naming flowCollector.address', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const { code, stderr } = await capture(['export', 'ipfix', '--config', configFile(`flowCollector:\n  address: "127.0.0.1:${port}:tcp"\n  connectTimeout: 2s\n`)]);
  assert.equal(code, 1);
  assert.match(stderr, new RegExp(`cannot reach the IPFIX collector 127\\.0\\.0\\.1:${port} \\(flowCollector\\.address\\).*FLOWAGG_ERR_IPFIX_EXPORT_CONNECT`));
});
