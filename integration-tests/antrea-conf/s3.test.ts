// Antrea's chart-rendered flow-aggregator.conf with the S3 uploader enabled (lib/config/testdata/
// antrea-s3.conf) runs unchanged against an S3-compatible server: uncompressed CSV files of Antrea's 53
// fields under the file's bucket and prefix. The endpoint (flowagg's key: the file names AWS) and the
// credentials come from the environment, as a deployment's would.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BucketAlreadyOwnedByYou, CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { until } from '../../lib/testing/until.js';
import { S3_FIELDS } from '../../exporters/row/columns.js';
import { readBucketLines, s3ForTests, TEST_S3_CREDENTIALS } from '../harness/s3.js';
import { confFile, runConf, simulateAgents, stopConf } from './testing/conf-run.js';

const { endpoint, skip } = s3ForTests();
const BUCKET = 'antrea-flow-records';

test('S3: CSV files of 53 fields under the bucket and prefix of the file', { skip }, async (t) => {
  const s3 = new S3Client({ endpoint, region: 'us-west-2', forcePathStyle: true, credentials: TEST_S3_CREDENTIALS });
  t.after(() => s3.destroy());
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET, CreateBucketConfiguration: { LocationConstraint: 'us-west-2' } })).catch((err: unknown) => {
    if (!(err instanceof BucketAlreadyOwnedByYou)) throw err;
  });
  const keys = async () => ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map((o) => o.Key!);
  const before = new Set(await keys());
  const c = await runConf(t, confFile('s3'), {
    FLOWAGG_CFG_S3UPLOADER_ENDPOINT: endpoint,
    AWS_ACCESS_KEY_ID: TEST_S3_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: TEST_S3_CREDENTIALS.secretAccessKey,
  });
  await simulateAgents(c, t.signal);
  const added = await until('a file uploaded (uploadInterval 5s)', async () => {
    const now = (await keys()).filter((k) => !before.has(k));
    return now.length > 0 ? now : undefined;
  }, { intervalMs: 500 });
  await stopConf(c);
  // Named after the batch, so that a redelivered one overwrites its own file (README: Antrea's names are random).
  assert.ok(added.every((k) => /^cluster-a\/records-flows\.processed-\d+-\d+-\d+\.csv$/.test(k)), added.join(', '));
  const lines = (await readBucketLines(s3, BUCKET)).filter((l) => l !== '');
  assert.ok(lines.length > 0);
  // Labels are quoted and may hold commas: split on the commas outside single quotes.
  const fields = lines.map((l) => l.split(/,(?=(?:[^']*'[^']*')*[^']*$)/));
  assert.ok(fields.every((f) => f.length === S3_FIELDS.length && S3_FIELDS.length === 53), 'every line has 53 fields');
});
