// The S3 uploader killed with SIGKILL at random moments ten times while it uploads 50,000 records:
// afterwards the bucket holds every record exactly once, because a batch uploaded again after a restart
// overwrites the object of the same name.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { readBucketLines, s3ForTests, TEST_S3_CREDENTIALS } from '../../integration-tests/harness/s3.js';
import { S3_FIELDS } from '../row/columns.js';
import { exportThroughCrashes } from '../testing/crash.js';

const { endpoint, skip } = s3ForTests();
const s3 = endpoint === undefined ? undefined : new S3Client({ endpoint, region: 'us-west-2', forcePathStyle: true, credentials: TEST_S3_CREDENTIALS });
after(() => s3?.destroy());

test('S3: SIGKILL at random moments ten times, every record once', { skip, timeout: 600_000 }, async (t) => {
  const bucket = `flowagg-crash-${randomBytes(4).toString('hex')}`;
  await s3!.send(new CreateBucketCommand({ Bucket: bucket, CreateBucketConfiguration: { LocationConstraint: 'us-west-2' } }));
  const at = S3_FIELDS.indexOf('octetDeltaCount');
  const run = await exportThroughCrashes({
    kind: 's3',
    total: 50_000,
    sectionYaml: `s3Uploader:\n  bucketName: ${bucket}\n  endpoint: "${endpoint}"\n  uploadInterval: 1s\n  maxRecordsPerFile: 1000\n`,
    env: { AWS_ACCESS_KEY_ID: TEST_S3_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: TEST_S3_CREDENTIALS.secretAccessKey },
    delivered: async () => {
      const lines = await readBucketLines(s3!, bucket);
      return { records: lines.length, distinct: new Set(lines.map((l) => l.split(',')[at])).size };
    },
  });
  t.diagnostic(`seed ${run.seed}; kills after ${run.delaysMs.join(', ')} ms`);
  assert.equal(run.distinct, 50_000, `every record (seed ${run.seed}, kills after ${run.delaysMs.join(', ')} ms)`);
  assert.equal(run.records, 50_000, `no record twice (seed ${run.seed})`);
});
