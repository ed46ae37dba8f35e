// An S3-compatible server for the functional tests and benchmarks: S3_ENDPOINT from the environment (a
// server someone already runs), else the local launcher infra/dev/s3 (moto's server, from PyPI). moto
// takes any access key; the tests use TEST_S3_CREDENTIALS.
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { startDevLauncher } from './dev-launcher.js';

export interface S3Service {
  /** http://host:port */
  readonly endpoint: string;
  readonly source: 'env' | 'local';
  stop(): Promise<void>;
}

export const TEST_S3_CREDENTIALS = { accessKeyId: 'flowagg-test', secretAccessKey: 'flowagg-test-secret' } as const;

export async function startS3(log: (line: string) => void): Promise<S3Service> {
  const fromEnv = process.env.S3_ENDPOINT?.trim();
  if (fromEnv) return { endpoint: fromEnv, source: 'env', stop: async () => {} };
  try {
    const dev = await startDevLauncher({ name: 's3', stateVariable: 'FLOWAGG_S3_STATE', pidFiles: ['s3.pid'] }, log);
    return { endpoint: dev.address, source: 'local', stop: dev.stop };
  } catch (err) {
    throw new Error(
      `the S3 tests need an S3-compatible server, and none could be had: no S3_ENDPOINT, and the local launcher failed (it needs moto_server: pip install 'moto[server]'; .ci/run installs it).\n${(err as Error).message}`,
      { cause: err },
    );
  }
}

/** The server a functional test runs against; skipped without one, except in CI, where that is a failure. */
export function s3ForTests(): { endpoint: string; skip: false } | { endpoint: undefined; skip: string } {
  const endpoint = process.env.S3_ENDPOINT?.trim();
  if (endpoint) return { endpoint, skip: false };
  if (process.env.CI === 'true') throw new Error('S3_ENDPOINT is not set in CI: run the functional tests through `npm test`, which starts a server');
  return { endpoint: undefined, skip: 'S3_ENDPOINT is not set (`npm test` starts a server; or S3_ENDPOINT=$(infra/dev/s3 start))' };
}

/** Every line of every object of a bucket (gzip'ed objects unpacked), in key order. */
export async function readBucketLines(s3: S3Client, bucket: string): Promise<string[]> {
  const lines: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ...(token && { ContinuationToken: token }) }));
    for (const o of page.Contents ?? []) {
      const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key! }));
      const bytes = Buffer.from(await got.Body!.transformToByteArray());
      const text = (o.Key!.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
      if (text !== '') lines.push(...text.trimEnd().split('\n'));
    }
    token = page.NextContinuationToken;
  } while (token !== undefined);
  return lines;
}
