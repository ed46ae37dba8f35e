// `flowagg export clickhouse|s3|flowlog` and `flowagg run` refuse a bad clickHouse, s3Uploader or
// flowLogger section at start, each problem naming its key. No server is needed to see that.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { closedPort } from '../../../exporters/testing/records.js';
import { runMain as capture } from '../testing/run-main.js';

const dir = mkdtempSync(join(tmpdir(), 'flowagg-export-tables-cli-'));

function configFile(yaml: string): string {
  const file = join(dir, `flowagg-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `log:\n  embedded:\n    dir: ${join(dir, 'log')}\napiServer:\n  apiPort: 0\n  protocol: http\n${yaml}`);
  return file;
}


test('values out of range in the three sections fail flowagg run, each naming its key', async () => {
  const file = configFile(
    'clickHouse:\n  enable: true\n  commitInterval: 500ms\ns3Uploader:\n  uploadInterval: 10ms\n  recordFormat: JSON\n' +
      'flowLogger:\n  maxSize: 0\n  recordFormat: XML\n  filters:\n    - ingressNetworkPolicyRuleActions: [Deny]\n',
  );
  const { code, stderr } = await capture(['run', '--config', file]);
  assert.equal(code, 1);
  assert.match(stderr, /clickHouse\.commitInterval \([^)]*\): commitInterval must be at least 1s/);
  assert.match(stderr, /s3Uploader\.uploadInterval \([^)]*\): uploadInterval must be at least 1s/);
  assert.match(stderr, /s3Uploader\.recordFormat \([^)]*\): "JSON" is not a record format \(only CSV\)/);
  assert.match(stderr, /flowLogger\.maxSize \([^)]*\): 0 is too small/);
  assert.match(stderr, /flowLogger\.recordFormat \([^)]*\): "XML" is not a record format/);
  assert.match(stderr, /flowLogger\.filters\.0\.ingressNetworkPolicyRuleActions\.0 \([^)]*\): "Deny" is not a rule action/);
});

test('flowagg export clickhouse refuses a wrong scheme and an unreachable server, naming clickHouse.databaseURL', async () => {
  const scheme = await capture(['export', 'clickhouse', '--config', configFile('clickHouse:\n  databaseURL: "grpc://clickhouse:9000"\n')]);
  assert.equal(scheme.code, 1);
  assert.match(scheme.stderr, /clickHouse\.databaseURL "grpc:\/\/clickhouse:9000": the scheme grpc is not supported/);
  const port = await closedPort();
  const down = await capture(['export', 'clickhouse', '--config', configFile(`clickHouse:\n  databaseURL: "http://127.0.0.1:${port}"\n  startTimeout: 1s\n`)]);
  assert.equal(down.code, 1);
  assert.match(down.stderr, new RegExp(`clickHouse\\.databaseURL http://127\\.0\\.0\\.1:${port}: cannot reach ClickHouse`));
});

test('flowagg export clickhouse refuses a CA file that cannot be read, naming clickHouse.caCertPath', async () => {
  const { code, stderr } = await capture(['export', 'clickhouse', '--config', configFile('clickHouse:\n  databaseURL: "tls://clickhouse:9440"\n  tls:\n    caCert: true\n  caCertPath: /nonexistent/ca.crt\n')]);
  assert.equal(code, 1);
  assert.match(stderr, /clickHouse\.caCertPath \/nonexistent\/ca\.crt \(read because clickHouse\.tls\.caCert is true\)/);
});

test('flowagg export s3 without a bucket, without credentials, or with an unreachable endpoint, names what to fix', async () => {
  const none = await capture(['export', 's3', '--config', configFile('')]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /s3Uploader\.bucketName is empty/);
  const port = await closedPort();
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  delete process.env.AWS_ACCESS_KEY_ID;
  delete process.env.AWS_SECRET_ACCESS_KEY;
  process.env.AWS_CONFIG_FILE = process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'no-aws-config');
  const anonymous = await capture(['export', 's3', '--config', configFile(`s3Uploader:\n  bucketName: flows\n  endpoint: "http://127.0.0.1:${port}"\n`)]);
  assert.equal(anonymous.code, 1);
  assert.match(anonymous.stderr, /no AWS credentials .*set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
  process.env.AWS_ACCESS_KEY_ID = 'flowagg-test';
  process.env.AWS_SECRET_ACCESS_KEY = 'flowagg-test-secret';
  const down = await capture(['export', 's3', '--config', configFile(`s3Uploader:\n  bucketName: flows\n  endpoint: "http://127.0.0.1:${port}"\n`)]);
  assert.equal(down.code, 1);
  assert.match(down.stderr, /s3Uploader\.endpoint: cannot reach http:\/\/127\.0\.0\.1/);
  for (const [k, v] of [['AWS_ACCESS_KEY_ID', saved.id], ['AWS_SECRET_ACCESS_KEY', saved.secret]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

test('flowagg export flowlog with a path it cannot write names flowLogger.path', async () => {
  const blocker = join(dir, 'a-file');
  writeFileSync(blocker, '');
  const { code, stderr } = await capture(['export', 'flowlog', '--config', configFile(`flowLogger:\n  path: ${join(blocker, 'flows.log')}\n`)]);
  assert.equal(code, 1);
  assert.match(stderr, /flowLogger\.path .*cannot open the flow log/);
});
