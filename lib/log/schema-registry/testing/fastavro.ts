// Test support: values read back by fastavro (read-confluent.py), to check flowagg's Avro against an
// independent implementation. Production code never imports this file.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SchemaRegistryConfig } from '../config.js';

const SCRIPT = fileURLToPath(new URL('./read-confluent.py', import.meta.url));

export interface FastavroRecord {
  readonly schemaId: number;
  readonly record: Record<string, unknown>;
}

/**
 * `source`: the registry the values' ids are registered with, reached with the same URL, basic auth and
 * TLS files flowagg is configured with, or the schema file the values were written with.
 */
export function readWithFastavro(values: readonly Buffer[], source: { registry: Pick<SchemaRegistryConfig, 'url' | 'basicAuth' | 'tls'> } | { schema: string }): FastavroRecord[] {
  const args = 'schema' in source ? ['--schema', source.schema] : registryArgs(source.registry);
  const env = { ...process.env, READ_CONFLUENT_PASSWORD: 'registry' in source ? (source.registry.basicAuth?.password ?? '') : '' };
  const r = spawnSync('python3', [SCRIPT, ...args], { input: values.map((v) => v.toString('hex')).join('\n') + '\n', encoding: 'utf8', env, maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`read-confluent.py failed (${r.status}): ${r.stderr || r.error?.message}`);
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l) as FastavroRecord);
}

function registryArgs({ url, basicAuth, tls }: Pick<SchemaRegistryConfig, 'url' | 'basicAuth' | 'tls'>): string[] {
  const files = (['ca', 'cert', 'key'] as const).flatMap((k) => (tls?.[k] === undefined ? [] : [`--${k}`, tls[k]]));
  return ['--registry', url, ...(basicAuth ? ['--user', basicAuth.username] : []), ...files];
}
