// The S3 uploader (`s3Uploader` section, reference §3, §7.3): each batch of flows.processed becomes one
// CSV file (gzip'ed by default) in the bucket, uploaded with one PUT through @aws-sdk/client-s3. A batch
// is accepted once S3 answered the PUT; the runner then commits.
//
// Exactly once: Antrea names files `records-<12 random characters>`, so an upload retried after a lost
// answer is a second file. flowagg names a file after its batch (topic, partition, offset range: the
// runner cuts the same batch again after a crash), so a retried or redelivered upload overwrites the same
// object with the same records, and a PUT is all or nothing. Antrea keeps at most 5 files waiting and
// drops the oldest; flowagg keeps nothing of its own: what is not uploaded is not committed.
//
// A file holds one batch: at most maxRecordsPerFile records, and at most MAX_FILE_RECORDS, because the
// whole file is built in memory before its PUT.
//
// start() checks the bucket (HeadBucket). S3 not answering, no such bucket, access denied, no
// credentials: each fails the start with what to fix, and the runner tries again with backoff (a
// bucket can be created, a policy or a credential fixed, while records wait in the log).
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { HeadBucketCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { FlowaggError, errorMessage } from '../../lib/errors.js';
import { componentLogger, type Logger } from '../../lib/telemetry/logger.js';
import { componentMetrics } from '../../lib/telemetry/metrics.js';
import { notDelivered } from '../errors.js';
import { type ClusterUuidSource, resolveClusterUuid } from '../row/cluster-uuid.js';
import { toFlowRow } from '../row/flow-row.js';
import { LineBuffer } from '../row/line-buffer.js';
import { decodeEach } from '../flow-values.js';
import type { ExportBatch, Exporter } from '../types.js';
import { regionOf, s3UploaderProblems, type S3UploaderConfig } from './config.js';
import { s3CsvLine } from './csv.js';
import { S3_CONFIG, S3_UNAVAILABLE } from './errors.js';

const gzipAsync = promisify(gzip);

export const MAX_FILE_RECORDS = 50_000;

const m = componentMetrics('export_s3');
const metrics = {
  files: m.counter('files_total', 'Files uploaded'),
  records: m.counter('records_total', 'Records in the uploaded files'),
  bytes: m.counter('bytes_total', 'Bytes uploaded (compressed when compress is on)'),
  failures: m.counter('upload_failures_total', 'Failed uploads (retried; a retry overwrites the same object)'),
};

export interface S3Deps {
  /** The Antrea cluster UUID of the clusterUUID column; "" when unknown. */
  readonly clusterUuid?: ClusterUuidSource;
  /** Instead of the SDK's default chain (environment, profile, role). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly logger?: Logger;
  readonly now?: () => number;
}

/** The object key of a batch: deterministic, so that uploading the batch again overwrites it. */
export function objectKey(config: S3UploaderConfig, batch: ExportBatch): string {
  const name = `records-${batch.topic}-${batch.partition}-${batch.firstOffset}-${batch.lastOffset}.csv${config.compress ? '.gz' : ''}`;
  return config.bucketPrefix === '' ? name : `${config.bucketPrefix.replace(/\/+$/, '')}/${name}`;
}

export function createS3Exporter(config: S3UploaderConfig, deps: S3Deps = {}): Exporter {
  const logger = deps.logger ?? componentLogger('export-s3');
  const now = deps.now ?? Date.now;
  let clusterUuid = '';
  const [problem] = s3UploaderProblems(config);
  if (problem !== undefined) throw new FlowaggError(S3_CONFIG, `s3Uploader.${problem.key} ${problem.message}`, { context: { key: `s3Uploader.${problem.key}` } });
  const region = regionOf(config);
  const client = new S3Client({
    region,
    ...(config.endpoint && { endpoint: config.endpoint }),
    forcePathStyle: config.forcePathStyle ?? config.endpoint !== undefined,
    ...(deps.credentials && { credentials: deps.credentials }),
    requestHandler: { connectionTimeout: 5000, requestTimeout: 120_000 },
  });
  const where = config.endpoint ?? `AWS S3 (${region})`;

  return {
    kind: 's3',
    batching: { maxRecords: Math.min(config.maxRecordsPerFile, MAX_FILE_RECORDS), maxDelayMs: config.uploadInterval },
    async start(signal?: AbortSignal) {
      clusterUuid = await resolveClusterUuid(deps.clusterUuid);
      try {
        await client.send(new HeadBucketCommand({ Bucket: config.bucketName }), signal && { abortSignal: signal });
      } catch (err) {
        throw startError(config, where, err);
      }
      logger.info({ bucket: config.bucketName, prefix: config.bucketPrefix, region, endpoint: config.endpoint, compress: config.compress }, 'S3 bucket ready');
    },
    async deliver(batch: ExportBatch, signal: AbortSignal) {
      const timeInserted = Math.floor(now() / 1000);
      const lines = new LineBuffer();
      decodeEach(batch, ({ offset }, flow) => lines.push(offset, s3CsvLine(toFlowRow(flow, clusterUuid), timeInserted)));
      // A batch whose every record was unreadable has nothing to upload.
      if (lines.count === 0) return;
      const csv = lines.bytes(0, lines.count);
      const body = config.compress ? await gzipAsync(csv) : Buffer.from(csv);
      const key = objectKey(config, batch);
      try {
        await client.send(new PutObjectCommand({ Bucket: config.bucketName, Key: key, Body: body, ContentType: 'text/csv' }), { abortSignal: signal });
      } catch (err) {
        metrics.failures.inc();
        // A PUT is all or nothing and its retry writes the same key: a failed upload never leaves a duplicate.
        throw notDelivered(new FlowaggError(S3_UNAVAILABLE, `upload of ${key} (${lines.count} records) to bucket ${config.bucketName} at ${where} failed: ${errorMessage(err)}`, {
          context: { batch: batch.id, key },
          cause: err,
          retriable: true,
        }));
      }
      metrics.files.inc();
      metrics.records.inc(lines.count);
      metrics.bytes.inc(body.length);
    },
    async stop() {
      client.destroy();
    },
  };
}

function startError(config: S3UploaderConfig, where: string, err: unknown): FlowaggError {
  if ((err as Error).name === 'CredentialsProviderError') {
    return new FlowaggError(S3_CONFIG, `no AWS credentials to upload to bucket ${config.bucketName} (s3Uploader): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile or a role`, {
      context: { key: 's3Uploader.bucketName' },
      cause: err,
    });
  }
  const status = err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;
  if (status === 404) {
    return new FlowaggError(S3_CONFIG, `s3Uploader.bucketName ${config.bucketName}: no such bucket at ${where}`, { context: { key: 's3Uploader.bucketName' }, cause: err });
  }
  if (status === 403 || status === 401) {
    return new FlowaggError(S3_CONFIG, `s3Uploader.bucketName ${config.bucketName}: access denied at ${where} (credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile or a role)`, {
      context: { key: 's3Uploader.bucketName' },
      cause: err,
    });
  }
  const key = config.endpoint !== undefined ? 's3Uploader.endpoint' : 's3Uploader.region';
  return new FlowaggError(S3_UNAVAILABLE, `${key}: cannot reach ${where} to check bucket ${config.bucketName}: ${errorMessage(err)}`, { context: { key }, cause: err, retriable: true });
}
