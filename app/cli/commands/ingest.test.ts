import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runMain } from '../testing/run-main.js';

test('flowagg ingest and run report every problem of a bad configuration file with its key, and exit 1', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'flowagg-cli-')), 'bad.yaml');
  writeFileSync(file, 'aggregatorTransportProtocol: sctp\ningest:\n  port: 70000\n  templateTtl: soon\nunknownKey: 1\n');
  for (const command of ['ingest', 'run']) {
    const { code, stderr } = await runMain([command, '--config', file]);
    assert.equal(code, 1);
    assert.match(stderr, new RegExp(`flowagg ${command}: configuration file .*bad\\.yaml is invalid`));
    assert.match(stderr, /aggregatorTransportProtocol\.0 \(.*bad\.yaml:1\): "sctp" is not a transport/);
    assert.match(stderr, /ingest\.port \(.*bad\.yaml:3\): 70000 is too large: at most 65535/);
    assert.match(stderr, /ingest\.templateTtl \(.*bad\.yaml:4\): "soon" is not a duration/);
    assert.doesNotMatch(stderr, /unknownKey/, 'an unknown key is a warning (logged), not one of the errors');
    assert.match(stderr, /FLOWAGG_ERR_CONFIG_INVALID/);
  }
});

test('a missing configuration file is named', async () => {
  const { code, stderr } = await runMain(['ingest', '--config', '/nonexistent/flowagg.yaml']);
  assert.equal(code, 1);
  assert.match(stderr, /cannot read configuration file \/nonexistent\/flowagg\.yaml/);
});
