import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCaptured as capture } from '../testing.js';

test('flowagg ingest and run report every problem of a bad configuration file with its key, and exit 1', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'flowagg-cli-')), 'bad.yaml');
  writeFileSync(file, 'aggregatorTransportProtocol: sctp\ningest:\n  port: 70000\n  templateTtl: soon\nunknownKey: 1\n');
  for (const command of ['ingest', 'run']) {
    const { code, stderr } = await capture([command, '--config', file]);
    assert.equal(code, 1);
    assert.match(stderr, new RegExp(`flowagg ${command}: configuration file .*bad\\.yaml is invalid`));
    assert.match(stderr, /aggregatorTransportProtocol\.0: "sctp" is not a transport/);
    assert.match(stderr, /ingest\.port: /);
    assert.match(stderr, /ingest\.templateTtl: "soon" is not a duration/);
    assert.match(stderr, /Unrecognized key: "unknownKey"/);
    assert.match(stderr, /FLOWAGG_ERR_CONFIG_INVALID/);
  }
});

test('a missing configuration file is named', async () => {
  const { code, stderr } = await capture(['ingest', '--config', '/nonexistent/flowagg.yaml']);
  assert.equal(code, 1);
  assert.match(stderr, /cannot read configuration file \/nonexistent\/flowagg\.yaml/);
});
