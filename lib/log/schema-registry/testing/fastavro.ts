// Test support: values read back by fastavro (read-confluent.py), to check flowagg's Avro against an
// independent implementation. Production code never imports this file.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./read-confluent.py', import.meta.url));

export interface FastavroRecord {
  readonly schemaId: number;
  readonly record: Record<string, unknown>;
}

/** `source`: the registry URL or the schema file the values were written with. */
export function readWithFastavro(values: readonly Buffer[], source: { registry: string } | { schema: string }): FastavroRecord[] {
  const args = 'registry' in source ? ['--registry', source.registry] : ['--schema', source.schema];
  const r = spawnSync('python3', [SCRIPT, ...args], { input: values.map((v) => v.toString('hex')).join('\n') + '\n', encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`read-confluent.py failed (${r.status}): ${r.stderr || r.error?.message}`);
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l) as FastavroRecord);
}
