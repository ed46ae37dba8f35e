// The flow log exporter killed with SIGKILL at random moments ten times while it writes 50,000 records
// into a file rotated every megabyte: afterwards the log and its (compressed) backups hold every record
// exactly once. The flow log deduplicates by its state file, so not even a redelivered batch repeats.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { test } from 'node:test';
import { exportThroughCrashes } from '../testing/crash.js';
import { listBackups } from './backups.js';

test('flow log: SIGKILL at random moments ten times, every record once', { timeout: 600_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-crash-flowlog-out-'));
  const path = join(dir, 'flows.log');
  const lines = async () => {
    const files = [...(await listBackups(path)).map((b) => b.path), path];
    const all: string[] = [];
    for (const f of files) {
      const bytes = await readFile(f).catch(() => Buffer.alloc(0));
      const text = (f.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
      all.push(...text.split('\n').filter((l) => l !== ''));
    }
    return all;
  };
  try {
    const run = await exportThroughCrashes({
      kind: 'flowlog',
      total: 50_000,
      sectionYaml: `flowLogger:\n  path: ${path}\n  maxSize: 1\n  maxBackups: 100000\n  compress: true\n`,
      logPattern: /cutting off lines|already in the log/,
    delivered: async () => {
        const all = await lines();
        // sourceIP and sourceTransportPort tell every record of the workload apart.
        return { records: all.length, distinct: new Set(all.map((l) => l.split(',').slice(2, 5).join(','))).size };
      },
    });
    t.diagnostic(`seed ${run.seed}; appends cut off or records found already in the log: ${run.logMatches}`);
  assert.equal(run.distinct, 50_000, `every record (seed ${run.seed}, kills after ${run.delaysMs.join(', ')} ms)`);
    assert.equal(run.records, 50_000, `no record twice (seed ${run.seed})`);
    assert.ok((await listBackups(path)).length >= 5, 'the log was rotated');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
