// The row exporters' throughput (issue 8; `npm run bench -- exporters` runs this file with the IPFIX
// cases of exporters.bench.ts). Each case delivers batches of already decoded FlowRecords (the runner's
// decoding is measured in exporters.bench.ts), so the figure is the exporter's own work (row conversion, encoding, I/O) and what its destination takes:
//   - ClickHouse: RowBinary INSERTs into the local server (Debian's 18.16 from infra/dev/clickhouse, or
//     CLICKHOUSE_URL), batch-column deduplication as on that server, with and without gzip; target
//     150,000 rows/s;
//   - flow log: CSV (prettyPrint) and JSON lines, each batch written and fsync'ed; target 300,000 lines/s;
//   - S3: gzip'ed CSV files uploaded to the local moto server (infra/dev/s3, or S3_ENDPOINT).
// The servers run in their own processes but on the same two cores, so their CPU competes with ours.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { createClient } from '@clickhouse/client';
import { startClickHouse } from '../integration-tests/harness/clickhouse.js';
import { startS3, TEST_S3_CREDENTIALS } from '../integration-tests/harness/s3.js';
import { clickHouseSection } from '../exporters/clickhouse/config.js';
import { createClickHouseExporter } from '../exporters/clickhouse/index.js';
import { flowLoggerSection } from '../exporters/flowlog/config.js';
import { createFlowLogExporter } from '../exporters/flowlog/index.js';
import { s3UploaderSection } from '../exporters/s3/config.js';
import { createS3Exporter } from '../exporters/s3/index.js';
import { aggregatedRecord } from '../exporters/testing/records.js';
import { flowRecordWriter } from '../schemas/flow-record.js';
import { FlowRecordDecoder } from '../schemas/flow-record-decoder.js';
import { type ExportBatch, type Exporter } from '../exporters/types.js';
import { type BenchResult, type Benchmark, measure } from './types.js';

const context = () => `load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} CPUs`;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Delivers batches of `size` records (offsets advancing, so each is new) for ~minMs; records/s and records per CPU-second. */
async function deliverRate(exporter: Exporter, size: number, minMs = 4000): Promise<{ rate: number; perCpu: number }> {
  // Records as the runner hands them over: decoded from their Avro values (objects of a stable shape).
  const writer = flowRecordWriter();
  const decoder = new FlowRecordDecoder();
  const template = Array.from({ length: size }, (_, i) => decoder.decode(writer.encode(aggregatedRecord(i))));
  const signal = new AbortController().signal;
  let offset = 0;
  let records = 0;
  const batch = (): ExportBatch => {
    const b = { id: `flows.processed/0/${offset}-${offset + size - 1}`, topic: 'flows.processed', partition: 0, firstOffset: offset, lastOffset: offset + size - 1, records: template.map((record, i) => ({ offset: offset + i, record })) };
    offset += size;
    return b;
  };
  await exporter.deliver(batch(), signal); // the first batch of a partition since start may be looked up first
  const c0 = process.cpuUsage();
  const rate = await measure(async () => {
    await exporter.deliver(batch(), signal);
    records += size;
  }, size, minMs, 1000);
  const c = process.cpuUsage(c0);
  return { rate, perCpu: records / ((c.user + c.system) / 1e6) };
}

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

  const dir = await mkdtemp(join(tmpdir(), 'flowagg-bench-flowlog-'));
  try {
    for (const recordFormat of ['CSV', 'JSON'] as const) {
      const exporter = createFlowLogExporter(flowLoggerSection.parse({ path: join(dir, `flows-${recordFormat}.log`), recordFormat, maxSize: 100, compress: false }));
      await exporter.start();
      const { rate, perCpu } = await deliverRate(exporter, 20_000);
      await exporter.stop();
      results.push({
        name: `flowlog ${recordFormat}${recordFormat === 'CSV' ? ' (30 columns, prettyPrint)' : ' lines'}`,
        value: rate,
        unit: 'lines/s',
        target: 300_000,
        note: `batches of 20,000, each written and fsync'ed with its state record, rotation at 100 MB; ${fmt(perCpu)} lines per CPU-second; ${context()}`,
      });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
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
