// Sending to the embedded log: a large send is cut into batches below 1 MiB, in order, offsets consecutive.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { batchSizeAt, readBatchHeader } from '../record-batch.js';
import { readAll } from './testing/read-all.js';
import { openEmbeddedLog } from './index.js';

/** The record counts of the batches in a partition's first segment, in order. */
function batchesOf(dir: string, topicPartition: string): number[] {
  const buf = readFileSync(join(dir, topicPartition, '00000000000000000000.log'));
  const counts: number[] = [];
  for (let pos = 0; pos < buf.length; pos += batchSizeAt(buf, pos)) counts.push(readBatchHeader(buf, pos).recordsCount);
  return counts;
}

test('a send of 3 MB to one partition is appended as batches below 1 MiB; a send over two partitions keeps each one\'s order', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-producer-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const log = await openEmbeddedLog({ dir, fsync: { policy: 'interval' } });
  try {
    await log.admin().createTopics([{ topic: 't', partitions: 2 }]);
    const value = (i: number) => Buffer.alloc(1000, i % 251);
    const big = Array.from({ length: 3000 }, (_, i) => ({ key: null, value: value(i), partition: 0 }));
    const metadata = await log.producer().send('t', big);
    assert.deepEqual(metadata.map((m) => m.offset), big.map((_, i) => i));
    const mixed = Array.from({ length: 10 }, (_, i) => ({ key: null, value: value(i), partition: i % 2 }));
    const placed = await log.producer().send('t', mixed);
    assert.deepEqual(placed.map((m) => [m.partition, m.offset]), mixed.map((_, i) => [i % 2, i % 2 === 0 ? 3000 + i / 2 : (i - 1) / 2]));
    const read = (await readAll(log, 't')).filter((r) => r.partition === 0);
    assert.equal(read.length, 3005);
    read.slice(0, 3000).forEach((r, i) => assert.ok(r.value!.equals(value(i)), `record ${i}`));
    await log.close();
    const batches = batchesOf(dir, 't-0');
    assert.ok(batches.length >= 3, `batches: ${batches.join(', ')}`);
    // readAll's sentinel is the last batch.
    assert.equal(batches.reduce((a, b) => a + b, 0), 3006, `batches: ${batches.join(', ')}`);
    assert.ok(batches.slice(0, -1).every((n) => n * 1032 <= 1 << 20), `batches: ${batches.join(', ')}`);
  } finally {
    await log.close().catch(() => undefined);
  }
});
