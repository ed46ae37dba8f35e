// The S3 uploader against a real S3-compatible server (moto's, from infra/dev/s3, or S3_ENDPOINT): the
// files it writes, read back and parsed; an upload repeated overwrites; configuration errors name their key.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { isFlowaggError } from '../../lib/errors.js';
import { s3ForTests, TEST_S3_CREDENTIALS } from '../../integration-tests/harness/s3.js';
import { toFlowRow } from '../row/flow-row.js';
import { aggregatedRecord, batchOf, closedPort } from '../testing/records.js';
import { s3UploaderSection } from './config.js';
import { createS3Exporter, objectKey } from './index.js';

const { endpoint, skip } = s3ForTests();
const signal = new AbortController().signal;
const s3 = endpoint === undefined ? undefined : new S3Client({ endpoint, region: 'us-west-2', forcePathStyle: true, credentials: TEST_S3_CREDENTIALS });

async function bucket(): Promise<string> {
  const name = `flowagg-test-${randomBytes(4).toString('hex')}`;
  await s3!.send(new CreateBucketCommand({ Bucket: name, CreateBucketConfiguration: { LocationConstraint: 'us-west-2' } }));
  return name;
}

async function objects(bucketName: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const list = await s3!.send(new ListObjectsV2Command({ Bucket: bucketName }));
  for (const o of list.Contents ?? []) {
    const got = await s3!.send(new GetObjectCommand({ Bucket: bucketName, Key: o.Key! }));
    const bytes = Buffer.from(await got.Body!.transformToByteArray());
    out.set(o.Key!, (o.Key!.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'));
  }
  return out;
}

describe('S3 uploader against a real S3-compatible server', { skip }, () => {
  it('uploads one gzip CSV file per batch, named after it, in the ClickHouse column order', async () => {
    const bucketName = await bucket();
    const config = s3UploaderSection.parse({ bucketName, bucketPrefix: 'flows/', endpoint, uploadInterval: '1s' });
    const exporter = createS3Exporter(config, { credentials: TEST_S3_CREDENTIALS, clusterUuid: 'c1', now: () => 1_800_000_000_000 });
    await exporter.start();
    const batches = [batchOf(0, 0, 300), batchOf(1, 0, 200)];
    for (const b of batches) await exporter.deliver(b, signal);
    await exporter.deliver(batches[0]!, signal); // again: overwrites, does not add
    await exporter.stop();

    const files = await objects(bucketName);
    assert.deepEqual([...files.keys()].sort(), ['flows/records-flows.processed-0-0-299.csv.gz', 'flows/records-flows.processed-1-0-199.csv.gz']);
    const lines = files.get(objectKey(config, batches[0]!))!.trimEnd().split('\n');
    assert.equal(lines.length, 300);
    const row = toFlowRow(aggregatedRecord(3), 'c1');
    const fields = lines[3]!.split(/,(?=(?:[^']*'[^']*')*[^']*$)/); // commas outside single quotes
    assert.equal(fields.length, 53);
    assert.equal(fields[0], String(row.flowStartSeconds));
    assert.equal(fields[5], row.sourceIP);
    assert.equal(fields[11], String(row.octetTotalCount));
    assert.equal(fields[24], row.destinationClusterIP);
    assert.equal(fields[25], row.destinationServiceIP);
    assert.equal(fields[40], `'${row.sourcePodLabels}'`);
    assert.equal(fields[48], 'c1');
    assert.equal(fields[49], '1800000000');
    assert.equal(fields[52], row.egressNodeName);
  });

  it('writes plain CSV without compress', async () => {
    const bucketName = await bucket();
    const config = s3UploaderSection.parse({ bucketName, endpoint, compress: false });
    const exporter = createS3Exporter(config, { credentials: TEST_S3_CREDENTIALS });
    await exporter.start();
    await exporter.deliver(batchOf(0, 10, 5), signal);
    await exporter.stop();
    const files = await objects(bucketName);
    assert.equal(files.get('records-flows.processed-0-10-14.csv')!.split('\n').length, 6);
  });

  it('fails at start, naming the key, on a missing bucket, an unreachable endpoint and no bucket name', async () => {
    const missing = createS3Exporter(s3UploaderSection.parse({ bucketName: 'no-such-bucket-flowagg', endpoint }), { credentials: TEST_S3_CREDENTIALS });
    await assert.rejects(missing.start(), (err: unknown) => isFlowaggError(err, 'FLOWAGG_ERR_S3_CONFIG') && /^s3Uploader\.bucketName no-such-bucket-flowagg: no such bucket/.test(err.message));
    await missing.stop();

    const port = await closedPort();
    const unreachable = createS3Exporter(s3UploaderSection.parse({ bucketName: 'b', endpoint: `http://127.0.0.1:${port}` }), { credentials: TEST_S3_CREDENTIALS });
    await assert.rejects(unreachable.start(), (err: unknown) => isFlowaggError(err, 'FLOWAGG_ERR_S3_UNAVAILABLE') && /^s3Uploader\.endpoint: cannot reach/.test(err.message));
    await unreachable.stop();

    assert.throws(() => createS3Exporter(s3UploaderSection.parse({ endpoint })), (err: unknown) => isFlowaggError(err, 'FLOWAGG_ERR_S3_CONFIG') && /s3Uploader\.bucketName is empty/.test(err.message));
  });
});
