// The `s3Uploader` section: Antrea's keys and defaults (reference §3), plus flowagg's `endpoint` and
// `forcePathStyle` for S3-compatible servers (MinIO, Ceph, moto). Credentials come from the AWS SDK's
// usual chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a profile, an IAM role), as in Antrea.
// A section in use without a bucket can never work: the schema refuses it (so `flowagg config check`
// does, and `flowagg export s3`, which uses the section whatever `enable` says), and so does the
// exporter, with the same check (s3UploaderProblems).
import { z } from 'zod';
import { emptyIsDefault } from '../../lib/config/empty.js';
import { duration } from '../../lib/config/types.js';

export const s3UploaderSection = z
  .strictObject({
    enable: z.boolean().default(false).describe('Whether `flowagg run` starts the S3 uploader (`flowagg export s3` runs it regardless).'),
    bucketName: z.string().default('').describe('The bucket files are uploaded to (required when the section is used).'),
    bucketPrefix: z.string().default('').describe('Objects are named `<bucketPrefix>/records-…`.'),
    region: z.string().default('').describe('"" → AWS_REGION → us-west-2.'),
    recordFormat: emptyIsDefault(z.literal('CSV', { error: (i) => `"${String(i.input)}" is not a record format (only CSV)` }).default('CSV').describe('CSV, the only format (as in Antrea).')),
    compress: z.boolean().default(true).describe('gzip the files (`.csv.gz`).'),
    maxRecordsPerFile: emptyIsDefault(z.number().int().min(1).default(1_000_000).describe('A file holds at most this many records.'), [0]),
    uploadInterval: emptyIsDefault(duration.default(60_000).refine((ms) => ms >= 1000, { message: 'uploadInterval must be at least 1s' }).describe('A file is uploaded at the latest this long after its first record arrived.')),
    endpoint: z.string().url().optional().describe('An S3-compatible server\'s URL instead of AWS\'s (http://127.0.0.1:9000).'),
    forcePathStyle: z.boolean().optional().describe('Bucket in the path rather than the host name; the default when `endpoint` is set.'),
  })
  .superRefine((c, ctx) => {
    if (c.enable) for (const p of s3UploaderProblems(c)) ctx.addIssue({ code: 'custom', path: [p.key], message: p.message });
  })
  .prefault({});

export type S3UploaderConfig = z.output<typeof s3UploaderSection>;

/** What makes a section in use unable to ever work, whatever S3 says: each with its key in the section. */
export function s3UploaderProblems(c: Pick<S3UploaderConfig, 'bucketName'>): { key: 'bucketName'; message: string }[] {
  return c.bucketName === '' ? [{ key: 'bucketName', message: 'is empty: name the bucket to upload to' }] : [];
}

export function regionOf(config: S3UploaderConfig, env: NodeJS.ProcessEnv = process.env): string {
  return config.region || env.AWS_REGION || 'us-west-2';
}
