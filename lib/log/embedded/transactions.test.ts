// Transactions beyond the contract: fencing by a newer producer with the same id, and recovery of
// transactions a crash left in doubt, from crash images made by copying the directory.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isFlowaggError } from '../../errors.js';
import { LOG_PRODUCER_FENCED } from '../errors.js';
import { openEmbeddedLog } from './index.js';
import { appendInternal, readAllInternal } from './internal-records.js';
import { PartitionLog } from './partition-log.js';
import { readAll } from './testing/read-all.js';
import { TXN_STATE_TOPIC } from './transactions.js';

const tempDir = () => fs.mkdtempSync(join(tmpdir(), 'flowagg-log-txn-'));

test('a new producer with the same transactional id fences the old one and aborts its open transaction', async () => {
  const dir = tempDir();
  const log = await openEmbeddedLog({ dir });
  try {
    await log.admin().createTopics([{ topic: 't', partitions: 1 }]);
    const first = log.transactionalProducer('same-id');
    const old = await first.begin();
    await old.send('t', [{ key: null, value: Buffer.from('from the fenced producer') }]);
    const second = log.transactionalProducer('same-id');
    const current = await second.begin();
    await current.send('t', [{ key: null, value: Buffer.from('from the new producer') }]);
    await current.commit();
    await assert.rejects(old.commit(), (err: unknown) => isFlowaggError(err, LOG_PRODUCER_FENCED) && err.message.includes('same-id'));
    await assert.rejects(first.begin(), (err: unknown) => isFlowaggError(err, LOG_PRODUCER_FENCED));
    assert.deepEqual((await readAll(log, 't')).map((r) => r.value!.toString()), ['from the new producer']);
  } finally {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Copies a log directory as a crash would leave it (the lock file belongs to a dead process). */
function crashImage(dir: string): string {
  const copy = tempDir();
  fs.cpSync(dir, copy, { recursive: true });
  fs.rmSync(join(copy, '.lock'));
  return copy;
}

test('recovery commits a transaction whose PrepareCommit is durable and aborts one without', async () => {
  const dir = tempDir();
  const images: string[] = [];
  const log = await openEmbeddedLog({ dir });
  try {
    await log.admin().createTopics([{ topic: 'out', partitions: 2 }, { topic: 'in', partitions: 1 }]);
    await log.producer().send('out', [{ key: null, value: Buffer.from('before'), partition: 0 }]);
    const txn = await log.transactionalProducer('in-doubt').begin();
    await txn.send('out', [0, 1, 1].map((partition, i) => ({ key: null, value: Buffer.from(`txn-${i}`), partition })));
    await txn.sendOffsets('g', [{ topic: 'in', partition: 0, offset: 42 }]);
    const undecided = crashImage(dir);
    const prepared = crashImage(dir);
    images.push(undecided, prepared);

    // Make `prepared` the image of a crash right after the commit point.
    const stateLog = await PartitionLog.open(prepared, TXN_STATE_TOPIC, 0, {
      segmentBytes: 1 << 20,
      indexIntervalBytes: 4096,
      readChunkBytes: 1 << 20,
      fsync: { policy: 'always', intervalMs: 1000 },
    });
    let registered: { pid: number; epoch: number } | undefined;
    await readAllInternal(stateLog, (r) => {
      if (r.key!.toString() === 'in-doubt') registered = JSON.parse(r.value!.toString()) as { pid: number; epoch: number };
    });
    const prepare = { ...registered!, state: 'PrepareCommit', partitions: [['out', 0], ['out', 1]], offsets: [{ groupId: 'g', topic: 'in', partition: 0, offset: 42 }] };
    await appendInternal(stateLog, [{ key: Buffer.from('in-doubt'), value: Buffer.from(JSON.stringify(prepare)) }]);
    await stateLog.close();

    for (const [image, expected, committed] of [
      [undecided, ['before'], null],
      [prepared, ['before', 'txn-0', 'txn-1', 'txn-2'], 42],
    ] as const) {
      const recovered = await openEmbeddedLog({ dir: image });
      try {
        const values = (await readAll(recovered, 'out')).map((r) => r.value!.toString()).sort();
        assert.deepEqual(values, expected);
        assert.equal((await recovered.admin().fetchGroupLag('g')).find((l) => l.topic === 'in')?.committed ?? null, committed);
        const again = await recovered.transactionalProducer('in-doubt').begin();
        await again.send('out', [{ key: null, value: Buffer.from('after'), partition: 1 }]);
        await again.commit();
        assert.ok((await readAll(recovered, 'out')).some((r) => r.value!.toString() === 'after'), 'transactions work after recovery');
      } finally {
        await recovered.close();
      }
    }
  } finally {
    await log.close();
    for (const d of [dir, ...images]) fs.rmSync(d, { recursive: true, force: true });
  }
});
