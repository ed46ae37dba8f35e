// What the clickHouse, s3Uploader and flowLogger sections refuse, and what they do not. A configuration
// that can never work (a value out of range, a databaseURL flowagg cannot serve, a section in use
// without a bucket) is refused by `flowagg config check`, `flowagg run` and `flowagg export` alike, each
// problem naming its key. A destination that cannot be reached or used (a server down, no credentials,
// a CA file or a log directory that is not there) never stops the process: the exporter retries, and
// /readyz stays ready with a detail that says since when and why. No server is needed to see that.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { closedPort } from '../../../exporters/testing/records.js';
import { exportUntil, UNREACHABLE_SINCE as since } from '../testing/export-until.js';
import { runMain as capture } from '../testing/run-main.js';
import { checkConfig } from './config.js';

const dir = mkdtempSync(join(tmpdir(), 'flowagg-export-tables-cli-'));

function configFile(yaml: string): string {
  const file = join(dir, `flowagg-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `log:\n  embedded:\n    dir: ${join(dir, 'log')}\napiServer:\n  apiPort: 0\n  protocol: http\n${yaml}`);
  return file;
}

/** `flowagg config check FILE`, its output captured. */
function configCheck(file: string): { code: number; stdout: string } {
  let stdout = '';
  const code = checkConfig({ positionals: ['check', file], values: {} }, (s) => void (stdout += s), {});
  return { code, stdout };
}

test('values out of range in the three sections fail flowagg run, each naming its key', async () => {
  const file = configFile(
    'clickHouse:\n  enable: true\n  commitInterval: 500ms\ns3Uploader:\n  uploadInterval: 10ms\n  recordFormat: JSON\n' +
      'flowLogger:\n  maxSize: -1\n  recordFormat: XML\n  filters:\n    - ingressNetworkPolicyRuleActions: [Deny]\n',
  );
  const { code, stderr } = await capture(['run', '--config', file]);
  assert.equal(code, 1);
  assert.match(stderr, /clickHouse\.commitInterval \([^)]*\): commitInterval must be at least 1s/);
  assert.match(stderr, /s3Uploader\.uploadInterval \([^)]*\): uploadInterval must be at least 1s/);
  assert.match(stderr, /s3Uploader\.recordFormat \([^)]*\): "JSON" is not a record format \(only CSV\)/);
  assert.match(stderr, /flowLogger\.maxSize \([^)]*\): -1 is too small/);
  assert.match(stderr, /flowLogger\.recordFormat \([^)]*\): "XML" is not a record format/);
  assert.match(stderr, /flowLogger\.filters\.0\.ingressNetworkPolicyRuleActions\.0 \([^)]*\): "Deny" is not a rule action/);
});

test('an enabled s3Uploader without a bucket and a databaseURL flowagg cannot serve: config check and flowagg run refuse them alike', async () => {
  const file = configFile('s3Uploader:\n  enable: true\nclickHouse:\n  enable: true\n  databaseURL: "grpc://clickhouse:9000"\n');
  const bucket = /s3Uploader\.bucketName \([^)]*\): is empty: name the bucket to upload to/;
  const url = /clickHouse\.databaseURL \([^)]*\): the scheme grpc is not supported/;
  const check = configCheck(file);
  assert.equal(check.code, 1);
  assert.match(check.stdout, bucket);
  assert.match(check.stdout, url);
  const run = await capture(['run', '--config', file]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, bucket);
  assert.match(run.stderr, url);
  // Disabled, the sections are not used and a default bucket name of "" is no problem.
  assert.equal(configCheck(configFile('s3Uploader:\n  enable: false\n')).code, 0);
});

test('flowagg export uses its section whatever `enable` says, so it refuses the same: no bucket, a native port it cannot map', async () => {
  const none = await capture(['export', 's3', '--config', configFile('')]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /s3Uploader\.bucketName \([^)]*\): is empty/);
  const port = await capture(['export', 'clickhouse', '--config', configFile('clickHouse:\n  databaseURL: "tcp://clickhouse:19000"\n')]);
  assert.equal(port.code, 1);
  assert.match(port.stderr, /clickHouse\.databaseURL \([^)]*\): tcp:\/\/ is ClickHouse's native protocol.*set clickHouse\.httpPort/);
});

test('ClickHouse unreachable, or its CA file missing: flowagg export clickhouse runs on, ready, saying why', async () => {
  const port = await closedPort();
  const down = await exportUntil(dir, 'clickhouse', 'clickHouse', { 'clickHouse.databaseURL': `http://127.0.0.1:${port}`, 'clickHouse.startTimeout': 500 }, new RegExp(`${since}clickHouse\\.databaseURL http://127\\.0\\.0\\.1:${port}: cannot reach ClickHouse`));
  assert.equal(down.readyz.status, 200);
  assert.equal(down.readyz.checks['export.clickhouse']!.ready, true);
  assert.equal(down.code, 0, 'stopped cleanly');
  const ca = await exportUntil(dir, 'clickhouse', 'clickHouse', { 'clickHouse.databaseURL': 'tls://clickhouse:9440', 'clickHouse.tls.caCert': true, 'clickHouse.caCertPath': '/nonexistent/ca.crt' }, new RegExp(`${since}clickHouse\\.caCertPath /nonexistent/ca\\.crt \\(read because clickHouse\\.tls\\.caCert is true\\)`));
  assert.equal(ca.readyz.status, 200);
});

test('S3 without credentials, or unreachable: flowagg export s3 runs on, ready, saying what to fix', async () => {
  const port = await closedPort();
  const endpoint = { 's3Uploader.bucketName': 'flows', 's3Uploader.endpoint': `http://127.0.0.1:${port}` };
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY, config: process.env.AWS_CONFIG_FILE, shared: process.env.AWS_SHARED_CREDENTIALS_FILE };
  try {
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    process.env.AWS_CONFIG_FILE = process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'no-aws-config');
    const anonymous = await exportUntil(dir, 's3', 's3Uploader', endpoint, new RegExp(`${since}no AWS credentials .*set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`));
    assert.equal(anonymous.readyz.status, 200);
    process.env.AWS_ACCESS_KEY_ID = 'flowagg-test';
    process.env.AWS_SECRET_ACCESS_KEY = 'flowagg-test-secret';
    const down = await exportUntil(dir, 's3', 's3Uploader', endpoint, new RegExp(`${since}s3Uploader\\.endpoint: cannot reach http://127\\.0\\.0\\.1:${port}`));
    assert.equal(down.readyz.status, 200);
  } finally {
    for (const [k, v] of [['AWS_ACCESS_KEY_ID', saved.id], ['AWS_SECRET_ACCESS_KEY', saved.secret], ['AWS_CONFIG_FILE', saved.config], ['AWS_SHARED_CREDENTIALS_FILE', saved.shared]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});

test('a flow log path that cannot be written: flowagg export flowlog runs on, ready, naming flowLogger.path', async () => {
  const blocker = join(dir, 'a-file');
  writeFileSync(blocker, '');
  const { readyz, code } = await exportUntil(dir, 'flowlog', 'flowLogger', { 'flowLogger.path': join(blocker, 'flows.log') }, new RegExp(`${since}flowLogger\\.path .*cannot open the flow log`));
  assert.equal(readyz.status, 200);
  assert.equal(code, 0);
});
