// Durability across close/reopen, and recovery from a torn or garbled tail written directly into a
// segment file: the log keeps every complete batch before the damage, cuts the rest, and carries on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isFlowaggError } from '../../errors.js';
import { LOG_CORRUPT } from '../errors.js';
import { openEmbeddedLog } from './index.js';
import { segmentBaseOffsets, segmentFileName } from './segment.js';
import { readAll } from './testing/read-all.js';

const tempDir = () => fs.mkdtempSync(join(tmpdir(), 'flowagg-log-recovery-'));
const values = (records: readonly { value: Buffer | null }[]) => records.map((r) => r.value!.toString());

/** Ten sends of ten records to partition 0 of `t`: ten batches. */
async function writeTenBatches(dir: string): Promise<void> {
  const log = await openEmbeddedLog({ dir });
  await log.admin().createTopics([{ topic: 't', partitions: 1 }]);
  for (let b = 0; b < 10; b++) {
    await log.producer().send('t', Array.from({ length: 10 }, (_, i) => ({ key: Buffer.from(`k${b}`), value: Buffer.from(`v${b * 10 + i}`), partition: 0 })));
  }
  await log.close();
}

const lastSegment = (dir: string): string => {
  const bases = segmentBaseOffsets(join(dir, 't-0'));
  return join(dir, 't-0', segmentFileName(bases[bases.length - 1]!));
};

for (const policy of ['always', 'interval'] as const) {
  test(`records, topics and committed offsets survive close and reopen (fsync ${policy})`, async () => {
    const dir = tempDir();
    try {
      const first = await openEmbeddedLog({ dir, fsync: { policy, interval: '10s' } });
      await first.admin().createTopics([{ topic: 'durable', partitions: 3, cleanupPolicy: 'compact' }]);
      const sent = Array.from({ length: 300 }, (_, i) => ({ key: Buffer.from(`key-${i}`), value: Buffer.from(`value-${i}`), timestamp: 1_700_000_000_000 + i }));
      await first.producer().send('durable', sent);
      const consumer = first.consumer({ groupId: 'g' });
      await consumer.commit([{ topic: 'durable', partition: 1, offset: 17 }]);
      await first.close();

      const second = await openEmbeddedLog({ dir });
      try {
        assert.deepEqual(await second.admin().listTopics(), [{ topic: 'durable', partitions: 3, cleanupPolicy: 'compact' }]);
        const got = await readAll(second, 'durable');
        assert.deepEqual(values(got).sort(), sent.map((s) => s.value.toString()).sort());
        assert.deepEqual((await second.admin().fetchGroupLag('g')).find((l) => l.partition === 1)?.committed, 17);
        const byTime = await second.admin().fetchOffsetsByTimestamp('durable', 1_700_000_000_150);
        const check = got.filter((r) => r.timestamp >= 1_700_000_000_150);
        for (const { partition, offset } of byTime) {
          const first = check.filter((r) => r.partition === partition).sort((a, b) => a.offset - b.offset)[0];
          assert.equal(offset, first?.offset, `partition ${partition}: time index rebuilt on open`);
        }
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

for (const damage of ['truncated', 'garbled'] as const) {
  test(`a ${damage} last batch is cut on open; the batches before it stay and appends continue`, async () => {
    const dir = tempDir();
    try {
      await writeTenBatches(dir);
      const file = lastSegment(dir);
      const size = fs.statSync(file).size;
      if (damage === 'truncated') {
        fs.truncateSync(file, size - 7);
      } else {
        const fd = fs.openSync(file, 'r+');
        fs.writeSync(fd, Buffer.from([0xde, 0xad]), 0, 2, size - 20);
        fs.closeSync(fd);
      }
      const log = await openEmbeddedLog({ dir });
      try {
        assert.deepEqual((await log.admin().fetchTopicOffsets('t'))[0], { partition: 0, low: 0, high: 90 });
        assert.ok(fs.statSync(file).size < size, 'the damaged tail was truncated');
        const [meta] = await log.producer().send('t', [{ key: null, value: Buffer.from('after'), partition: 0 }]);
        assert.equal(meta!.offset, 90);
        const got = await readAll(log, 't');
        assert.deepEqual(values(got), [...Array.from({ length: 90 }, (_, i) => `v${i}`), 'after']);
      } finally {
        await log.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('zeros after the last batch (a preallocated or half-written tail) are cut, every batch kept', async () => {
  const dir = tempDir();
  try {
    await writeTenBatches(dir);
    fs.appendFileSync(lastSegment(dir), Buffer.alloc(4096));
    const log = await openEmbeddedLog({ dir });
    try {
      assert.equal((await log.admin().fetchTopicOffsets('t'))[0]!.high, 100);
      assert.equal((await readAll(log, 't')).length, 100);
    } finally {
      await log.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('damage inside a closed segment is refused with FLOWAGG_ERR_LOG_CORRUPT naming the file', async () => {
  const dir = tempDir();
  try {
    const writer = await openEmbeddedLog({ dir, segmentBytes: 4096 });
    await writer.admin().createTopics([{ topic: 't', partitions: 1 }]);
    for (let b = 0; b < 10; b++) await writer.producer().send('t', [{ key: null, value: Buffer.alloc(1000, b), partition: 0 }]);
    await writer.close();
    const bases = segmentBaseOffsets(join(dir, 't-0'));
    assert.ok(bases.length > 1, 'several segments');
    const closed = join(dir, 't-0', segmentFileName(bases[0]!));
    fs.truncateSync(closed, fs.statSync(closed).size - 3);
    await assert.rejects(openEmbeddedLog({ dir }), (err: unknown) => isFlowaggError(err, LOG_CORRUPT) && err.message.includes(closed));
    // A failed open releases the lock: the next open fails for the same reason, not LOCKED.
    await assert.rejects(openEmbeddedLog({ dir }), (err: unknown) => isFlowaggError(err, LOG_CORRUPT));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('closed segments of large batches are indexed from their headers on open, aborted transactions included', async () => {
  const dir = tempDir();
  try {
    const now = Date.now();
    const big = (tag: string, i: number) => Array.from({ length: 300 }, (_, k) => ({ key: null, value: Buffer.from(`${tag}-${i}-${k}`.padEnd(300, '.')), timestamp: now + i, partition: 0 }));
    const writer = await openEmbeddedLog({ dir, segmentBytes: '1MiB' });
    await writer.admin().createTopics([{ topic: 't', partitions: 1 }]);
    const producer = writer.transactionalProducer('big');
    for (let i = 0; i < 30; i++) {
      const txn = await producer.begin();
      await txn.send('t', big(i % 3 === 0 ? 'aborted' : 'committed', i));
      if (i % 3 === 0) await txn.abort();
      else await txn.commit();
      await writer.producer().send('t', big('plain', i));
    }
    await writer.close();
    assert.ok(segmentBaseOffsets(join(dir, 't-0')).length > 5, 'several closed segments');

    const log = await openEmbeddedLog({ dir });
    try {
      const got = await readAll(log, 't');
      const tags = new Map<string, number>();
      for (const r of got) {
        const tag = r.value!.toString().split('-')[0]!;
        tags.set(tag, (tags.get(tag) ?? 0) + 1);
      }
      assert.deepEqual(Object.fromEntries(tags), { committed: 20 * 300, plain: 30 * 300 });
      const [byTime] = await log.admin().fetchOffsetsByTimestamp('t', now + 20);
      const first = got.find((r) => r.timestamp >= now + 20 && !r.value!.toString().startsWith('aborted'));
      assert.ok(byTime!.offset <= first!.offset, 'the time index finds the first record at or after the time');
      assert.equal(got.find((r) => r.offset >= byTime!.offset)?.timestamp, now + 20);
    } finally {
      await log.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
