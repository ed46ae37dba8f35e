// The `s3Uploader` section: Antrea's keys and defaults (reference §3), plus flowagg's `endpoint` and
// `forcePathStyle` for S3-compatible servers (MinIO, Ceph, moto). Credentials come from the AWS SDK's
// usual chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a profile, an IAM role), as in Antrea.
import { z } from 'zod';
import { emptyIsDefault } from '../../lib/config/empty.js';
import { duration } from '../../lib/config/types.js';

export const s3UploaderSection = z
  .strictObject({
    enable: z.boolean().default(false).describe('Whether `flowagg run` starts the S3 uploader (`flowagg export s3` runs it regardless).'),
    bucketName: z.string().default('').describe('The bucket files are uploaded to (required).'),
    bucketPrefix: z.string().default('').describe('Objects are named `<bucketPrefix>/records-…`.'),
    region: z.string().default('').describe('"" → AWS_REGION → us-west-2.'),
    recordFormat: emptyIsDefault(z.literal('CSV', { error: (i) => `"${String(i.input)}" is not a record format (only CSV)` }).default('CSV').describe('CSV, the only format (as in Antrea).')),
    compress: z.boolean().default(true).describe('gzip the files (`.csv.gz`).'),
    maxRecordsPerFile: emptyIsDefault(z.number().int().min(1).default(1_000_000).describe('A file holds at most this many records.'), [0]),
    uploadInterval: emptyIsDefault(duration.default(60_000).refine((ms) => ms >= 1000, { message: 'uploadInterval must be at least 1s' }).describe('A file is uploaded at the latest this long after its first record arrived.')),
    endpoint: z.string().url().optional().describe('An S3-compatible server\'s URL instead of AWS\'s (http://127.0.0.1:9000).'),
    forcePathStyle: z.boolean().optional().describe('Bucket in the path rather than the host name; the default when `endpoint` is set.'),
  })
  .prefault({});

export type S3UploaderConfig = z.output<typeof s3UploaderSection>;

export function regionOf(config: S3UploaderConfig, env: NodeJS.ProcessEnv = process.env): string {
  return config.region || env.AWS_REGION || 'us-west-2';
}
