// S3 down for 30 s while 100,000 records flow through the runner and the uploader: afterwards the
// bucket holds every record exactly once (files read back, every line parsed), and the sums of the
// counter columns are the records'. The outage is a proxy that cuts every connection, uploads in flight too.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { OutageProxy } from '../../integration-tests/harness/outage-proxy.js';
import { readBucketLines, s3ForTests, TEST_S3_CREDENTIALS } from '../../integration-tests/harness/s3.js';
import { openEmbeddedLog } from '../../lib/log/embedded/index.js';
import { topicsSchema } from '../../lib/log/topics.js';
import { COUNTER_COLUMNS, S3_FIELDS } from '../row/columns.js';
import { toFlowRow } from '../row/flow-row.js';
import { createExportRunner } from '../runner.js';
import { untilHolds } from '../../lib/testing/until.js';
import { DESTINATION_WAIT, flowThroughOutage } from '../testing/records.js';
import { s3UploaderSection } from './config.js';
import { createS3Exporter } from './index.js';

const { endpoint, skip } = s3ForTests();
const TOTAL = 100_000;

test('S3 down for 30 s: every record arrives exactly once', { skip, timeout: 600_000 }, async () => {
  const s3 = new S3Client({ endpoint, region: 'us-west-2', forcePathStyle: true, credentials: TEST_S3_CREDENTIALS });
  const bucket = `flowagg-outage-${randomBytes(4).toString('hex')}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket, CreateBucketConfiguration: { LocationConstraint: 'us-west-2' } }));
  const target = new URL(endpoint!);
  const proxy = await OutageProxy.start(target.hostname, Number(target.port));
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-s3-outage-'));
  const log = await openEmbeddedLog({ dir, fsync: { policy: 'interval' } });
  const topics = topicsSchema.parse({});
  const config = s3UploaderSection.parse({ bucketName: bucket, endpoint: `http://127.0.0.1:${proxy.port}`, uploadInterval: '1s', maxRecordsPerFile: 5000 });
  const runner = createExportRunner({ topics, backoff: { initialMs: 500, maxMs: 4000 } }, { log, exporter: createS3Exporter(config, { credentials: TEST_S3_CREDENTIALS }) });
  const expected = new Map<string, bigint>(COUNTER_COLUMNS.map((c) => [c, 0n]));
  try {
    await runner.start();
    await flowThroughOutage(log, topics.flowsProcessed, topics.flowsProcessedPartitions, TOTAL, proxy, 30_000, (r) => {
      const row = toFlowRow(r, '');
      for (const c of COUNTER_COLUMNS) expected.set(c, expected.get(c)! + BigInt(row[c]));
    });
    assert.ok(proxy.refused > 0, 'the uploader tried to reach S3 during the outage');
    await untilHolds('every record delivered', () => runner.stats().delivered, (n) => n >= TOTAL, DESTINATION_WAIT);
    await runner.stop();

    const lines = await readBucketLines(s3, bucket);
    assert.equal(lines.length, TOTAL, 'lines in the bucket');
    // Labels are quoted and hold commas: split on the commas outside single quotes.
    const fields = lines.map((l) => l.split(/,(?=(?:[^']*'[^']*')*[^']*$)/));
    const at = (name: string) => S3_FIELDS.indexOf(name as (typeof S3_FIELDS)[number]);
    assert.equal(new Set(fields.map((f) => f[at('octetDeltaCount')])).size, TOTAL, 'distinct records');
    for (const c of COUNTER_COLUMNS) assert.equal(fields.reduce((s, f) => s + BigInt(f[at(c)]!), 0n), expected.get(c), `sum(${c})`);
  } finally {
    await runner.stop().catch(() => {});
    await log.close();
    await proxy.close();
    s3.destroy();
    await rm(dir, { recursive: true, force: true });
  }
});
