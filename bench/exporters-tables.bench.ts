// The row exporters' throughput (issue 8; `npm run bench -- exporters` runs this file with the IPFIX
// cases of exporters.bench.ts; the flow log has flowlog.bench.ts). Each case delivers batches of framed
// FlowRecord values as the runner hands them over (deliver-rate.ts), so the figure is the exporter's own
// work (reading the values, encoding, I/O) and what its destination takes:
//   - ClickHouse: RowBinary INSERTs into the local server (Debian's 18.16 from infra/dev/clickhouse, or
//     CLICKHOUSE_URL), batch-column deduplication as on that server, with and without gzip; target
//     150,000 rows/s;
//   - S3: gzip'ed CSV files uploaded to the local moto server (infra/dev/s3, or S3_ENDPOINT).
// The servers run in their own processes but on the same two cores, so their CPU competes with ours.
import { cpus, loadavg } from 'node:os';
import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { createClient } from '@clickhouse/client';
import { startClickHouse } from '../integration-tests/harness/clickhouse.js';
import { startS3, TEST_S3_CREDENTIALS } from '../integration-tests/harness/s3.js';
import { clickHouseSection } from '../exporters/clickhouse/config.js';
import { createClickHouseExporter } from '../exporters/clickhouse/index.js';
import { s3UploaderSection } from '../exporters/s3/config.js';
import { createS3Exporter } from '../exporters/s3/index.js';
import { deliverRate } from './deliver-rate.js';
import type { BenchResult, Benchmark } from './types.js';

const context = () => `load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} CPUs`;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const bench: Benchmark = async (log) => {
  const results: BenchResult[] = [];

  const clickhouse = await startClickHouse(log);
  try {
    const admin = createClient({ url: clickhouse.url });
    for (const compress of [false, true]) {
      const database = `flowagg_bench_${randomBytes(4).toString('hex')}`;
      const exporter = createClickHouseExporter(clickHouseSection.parse({ databaseURL: clickhouse.url, database, compress, maxBatchRows: 20_000 }));
      await exporter.start();
      const { rate, perCpu } = await deliverRate(exporter, 20_000);
      await exporter.stop();
      await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
      results.push({
        name: `clickhouse insert, RowBinary${compress ? ', gzip' : ''} (${clickhouse.source} server)`,
        value: rate,
        unit: 'rows/s',
        target: 150_000,
        note: `batches of 20,000 rows, 51 columns + batch id (${exporter.deduplication} deduplication); ${fmt(perCpu)} rows per CPU-second of flowagg; ${context()}`,
      });
    }
    await admin.close();
  } finally {
    await clickhouse.stop();
  }

  const s3 = await startS3(log);
  try {
    const client = new S3Client({ endpoint: s3.endpoint, region: 'us-west-2', forcePathStyle: true, credentials: TEST_S3_CREDENTIALS });
    const bucketName = `flowagg-bench-${randomBytes(4).toString('hex')}`;
    await client.send(new CreateBucketCommand({ Bucket: bucketName, CreateBucketConfiguration: { LocationConstraint: 'us-west-2' } }));
    client.destroy();
    const exporter = createS3Exporter(s3UploaderSection.parse({ bucketName, endpoint: s3.endpoint }), { credentials: TEST_S3_CREDENTIALS });
    await exporter.start();
    const { rate, perCpu } = await deliverRate(exporter, 50_000, 6000);
    await exporter.stop();
    results.push({
      name: `s3 upload, gzip CSV (${s3.source} moto server)`,
      value: rate,
      unit: 'records/s',
      note: `files of 50,000 records (52 fields), one PUT each; ${fmt(perCpu)} records per CPU-second of flowagg; ${context()}`,
    });
  } finally {
    await s3.stop();
  }
  return results;
};

export default bench;
