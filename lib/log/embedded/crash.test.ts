// Crash safety: a child process appends (in transactions, and plainly) and is killed with SIGKILL at
// random moments, 20 times over the same directory. After each kill the log is reopened and must hold
// every acknowledged record exactly once, no record of an aborted or unacknowledged-and-uncommitted
// transaction, each transaction entirely or not at all, its consumed offsets with it, and keep working.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openEmbeddedLog } from './index.js';
import { meantToAbort, recordsIn } from './testing/crash-plan.js';
import { readAll } from './testing/read-all.js';
import { spawnTs } from './testing/spawn.js';
import { seededRandom } from '../../prng.js';

const ROUNDS = 20;
const CHILD = join(import.meta.dirname, 'testing', 'crash-child.ts');

test(`acknowledged records survive ${ROUNDS} SIGKILLs exactly once; uncommitted ones never appear`, { timeout: 300_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-log-crash-'));
  const seed = Number(process.env.FLOWAGG_CRASH_SEED ?? 20261129);
  const random = seededRandom(seed);
  const committed = new Set<number>();
  const acked = new Set<string>();
  let unacknowledgedVisible = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const firstSeq = round * 1_000_000;
      const child = spawnTs(CHILD, [dir, String(firstSeq)]);
      await child.waitForLine((l) => l === 'ready');
      await sleep(20 + Math.floor(random() * 400));
      child.proc.kill('SIGKILL');
      await child.exited;
      for (const line of child.lines) {
        const [kind, id] = line.split(' ');
        if (kind === 'committed') committed.add(Number(id));
        else if (kind === 'acked') acked.add(id!);
      }
      const context = `round ${round} (seed ${seed})`;

      const log = await openEmbeddedLog({ dir, maintenanceInterval: '1h' });
      try {
        const out = await readAll(log, 'out');
        const bySeq = new Map<number, Set<number>>();
        for (const r of out) {
          const { seq, i } = JSON.parse(r.value!.toString()) as { seq: number; i: number };
          const seen = bySeq.get(seq) ?? new Set<number>();
          assert.ok(!seen.has(i), `${context}: record ${seq}-${i} appears twice`);
          bySeq.set(seq, seen.add(i));
        }
        for (const seq of committed) assert.equal(bySeq.get(seq)?.size, recordsIn(seq), `${context}: committed transaction ${seq} is complete`);
        for (const [seq, records] of bySeq) {
          assert.ok(!meantToAbort(seq), `${context}: aborted transaction ${seq} is visible`);
          assert.equal(records.size, recordsIn(seq), `${context}: transaction ${seq} is all or nothing`);
          if (!committed.has(seq)) {
            // Killed after the commit point but before commit() resolved: committed, just not acknowledged.
            assert.ok(seq >= firstSeq && ![...committed].some((c) => c > seq), `${context}: only the last transaction may be committed unacknowledged (${seq})`);
            committed.add(seq);
            unacknowledgedVisible++;
          }
        }
        const lastSeq = Math.max(...bySeq.keys());
        const lag = await log.admin().fetchGroupLag('crash-group');
        if (bySeq.size > 0) assert.equal(lag.find((l) => l.topic === 'in')?.committed, lastSeq + 1, `${context}: offsets committed with the last transaction`);

        const plain = (await readAll(log, 'plain')).map((r) => r.value!.toString());
        assert.equal(new Set(plain).size, plain.length, `${context}: no plain record twice`);
        const present = new Set(plain);
        for (const id of acked) assert.ok(present.has(id), `${context}: acknowledged record ${id} survived`);

        const [meta] = await log.producer().send('plain', [{ key: null, value: Buffer.from(`after-${round}`), partition: 0 }]);
        const again = await readAll(log, 'plain');
        assert.ok(again.some((r) => r.offset === meta!.offset && r.value!.toString() === `after-${round}`), `${context}: the log appends and reads after recovery`);
      } finally {
        await log.close();
      }
    }
    t.diagnostic(`${committed.size} transactions committed (${unacknowledgedVisible} of them in doubt at a kill), ${acked.size} plain records acknowledged`);
    assert.ok(committed.size > ROUNDS, `the child committed transactions (${committed.size}, ${unacknowledgedVisible} unacknowledged at a kill)`);
    assert.ok(acked.size > ROUNDS, `the child appended plain records (${acked.size})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
