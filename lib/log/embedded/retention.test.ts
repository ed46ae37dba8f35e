// Retention deletes whole closed segments, oldest first, by size and by age; the log start moves, the
// active segment stays, and a consumer below the new start continues from it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type EmbeddedLog, openEmbeddedLog } from './index.js';
import { segmentBaseOffsets } from './segment.js';
import { readAll } from './testing/read-all.js';
import { until } from '../../testing/until.js';

const VALUE = Buffer.alloc(900, 1);

async function withLog(fn: (log: EmbeddedLog, dir: string) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(join(tmpdir(), 'flowagg-log-retention-'));
  const log = await openEmbeddedLog({ dir, segmentBytes: 4096, maintenanceInterval: '1h' });
  try {
    await fn(log, dir);
  } finally {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One record per send: about four per segment. */
async function fill(log: EmbeddedLog, topic: string, count: number, timestamp: (i: number) => number): Promise<void> {
  for (let i = 0; i < count; i++) await log.producer().send(topic, [{ key: null, value: VALUE, timestamp: timestamp(i), partition: 0 }]);
}

test('retention by size deletes the oldest closed segments and moves the log start', async () => {
  await withLog(async (log, dir) => {
    await log.admin().createTopics([{ topic: 'sized', partitions: 1, retentionBytes: 10_000, retentionMs: undefined }]);
    await fill(log, 'sized', 40, () => Date.now());
    const before = segmentBaseOffsets(join(dir, 'sized-0'));
    await log.runMaintenance();
    const after = segmentBaseOffsets(join(dir, 'sized-0'));
    assert.ok(after.length < before.length, `segments deleted (${before.length} → ${after.length})`);
    assert.equal(after[after.length - 1], before[before.length - 1], 'the active segment stays');
    const bytes = after.reduce((n, base) => n + fs.statSync(join(dir, 'sized-0', `${String(base).padStart(20, '0')}.log`)).size, 0);
    assert.ok(bytes >= 10_000 - 4096 && bytes < 10_000 + 4096, `about retentionBytes kept (${bytes})`);
    const [offsets] = await log.admin().fetchTopicOffsets('sized');
    assert.equal(offsets!.low, after[0]);
    assert.equal(offsets!.high, 40);
    const records = await readAll(log, 'sized');
    assert.deepEqual(records.map((r) => r.offset), Array.from({ length: 40 - offsets!.low }, (_, i) => offsets!.low + i), 'a new consumer starts at the new log start');
  });
});

test('retention by age deletes closed segments whose newest record is too old', async () => {
  await withLog(async (log, dir) => {
    const now = Date.now();
    await log.admin().createTopics([{ topic: 'aged', partitions: 1, retentionMs: 3_600_000 }]);
    await fill(log, 'aged', 20, (i) => (i < 12 ? now - 2 * 3_600_000 : now));
    await log.runMaintenance(now);
    const [offsets] = await log.admin().fetchTopicOffsets('aged');
    assert.ok(offsets!.low > 0 && offsets!.low <= 12, `old segments went, low = ${offsets!.low}`);
    const records = await readAll(log, 'aged');
    assert.ok(records.every((r) => r.offset >= offsets!.low));
    assert.equal(records.filter((r) => r.timestamp === now).length, 8, 'every recent record stays');
    assert.ok(segmentBaseOffsets(join(dir, 'aged-0')).length >= 1);
  });
});

test('a consumer whose position fell below the log start continues from the start', async () => {
  await withLog(async (log) => {
    await log.admin().createTopics([{ topic: 'behind', partitions: 1, retentionBytes: 8_000 }]);
    await fill(log, 'behind', 4, () => Date.now());
    const consumer = log.consumer({ groupId: 'slow' });
    await consumer.commit([{ topic: 'behind', partition: 0, offset: 1 }]);
    await fill(log, 'behind', 36, () => Date.now());
    await log.runMaintenance();
    const [offsets] = await log.admin().fetchTopicOffsets('behind');
    assert.ok(offsets!.low > 1);
    const seen: number[] = [];
    await consumer.subscribe(['behind']);
    await consumer.run({ eachBatch: async (b) => void seen.push(...b.records.map((r) => r.offset)) });
    await until('the records from the log start on', () => seen.length >= 40 - offsets!.low);
    await consumer.stop();
    assert.equal(seen[0], offsets!.low);
    assert.equal(seen.length, 40 - offsets!.low);
  });
});
