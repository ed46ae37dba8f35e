// Compaction keeps the latest record per key in closed segments, with offsets unchanged; tombstones go
// only after the tombstone retention; the active segment is never touched; aborted transactions are
// removed and committed ones stay (also across a reopen, where they must not look open).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isFlowaggError } from '../../errors.js';
import { LOG_KEY_REQUIRED } from '../errors.js';
import type { LogRecord } from '../types.js';
import { openEmbeddedLog } from './index.js';
import { compactionRemovedRecords } from './metrics.js';
import { readAll } from './testing/read-all.js';

const HOUR = 3_600_000;
const pad = (s: string) => Buffer.from(s.padEnd(400, '.'));
const latestByKey = (records: readonly LogRecord[]) => new Map(records.map((r) => [r.key!.toString(), r]));

test('compaction keeps the latest value per key with its offset, and drops tombstones after their retention', async () => {
  const dir = fs.mkdtempSync(join(tmpdir(), 'flowagg-log-compaction-'));
  const options = { dir, segmentBytes: 4096, tombstoneRetention: HOUR, maintenanceInterval: '1h' };
  let log = await openEmbeddedLog(options);
  try {
    await log.admin().createTopics([{ topic: 'state', partitions: 1, cleanupPolicy: 'compact' }]);
    await assert.rejects(log.producer().send('state', [{ key: null, value: pad('x') }]), (err: unknown) => isFlowaggError(err, LOG_KEY_REQUIRED));
    const now = Date.now();
    for (let round = 0; round < 5; round++) {
      for (let k = 0; k < 6; k++) await log.producer().send('state', [{ key: Buffer.from(`k${k}`), value: pad(`k${k} v${round}`), timestamp: now }]);
    }
    await log.producer().send('state', [{ key: Buffer.from('k0'), value: null, timestamp: now }]);
    for (let k = 1; k < 6; k++) await log.producer().send('state', [{ key: Buffer.from(`k${k}`), value: pad(`k${k} final`), timestamp: now }]);
    const before = await readAll(log, 'state');
    assert.equal(before.length, 36);
    const { high } = (await log.admin().fetchTopicOffsets('state'))[0]!;

    await log.runMaintenance(now);
    assert.equal((await log.admin().fetchTopicOffsets('state'))[0]!.high, high, 'the log end does not move');
    const after = await readAll(log, 'state');
    assert.ok(after.length < before.length, `records removed (${before.length} → ${after.length})`);
    const expected = latestByKey(before);
    assert.deepEqual(latestByKey(after), expected, 'the latest record of every key, at its original offset');
    assert.ok(after.some((r) => r.key!.toString() === 'k0' && r.value === null), 'the fresh tombstone is kept');
    const offsets = after.map((r) => r.offset);
    assert.deepEqual(offsets, [...offsets].sort((a, b) => a - b));

    await log.close();
    log = await openEmbeddedLog(options);
    assert.deepEqual(latestByKey(await readAll(log, 'state')), expected, 'the same after reopening');

    await log.producer().send('state', Array.from({ length: 12 }, (_, i) => ({ key: Buffer.from(`filler${i}`), value: pad('filler'), timestamp: now })));
    await log.runMaintenance(now + 2 * HOUR);
    const later = await readAll(log, 'state');
    assert.ok(!later.some((r) => r.key!.toString() === 'k0'), 'the tombstone is gone after its retention');
    for (let k = 1; k < 6; k++) assert.equal(later.find((r) => r.key!.toString() === `k${k}`)?.value?.toString().replace(/\.+$/, ''), `k${k} final`);
  } finally {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('compaction never touches the active segment', async () => {
  const dir = fs.mkdtempSync(join(tmpdir(), 'flowagg-log-compaction-'));
  const log = await openEmbeddedLog({ dir, segmentBytes: 1 << 20, maintenanceInterval: '1h' });
  try {
    await log.admin().createTopics([{ topic: 'one-segment', partitions: 1, cleanupPolicy: 'compact' }]);
    for (let i = 0; i < 20; i++) await log.producer().send('one-segment', [{ key: Buffer.from('same'), value: pad(`v${i}`) }]);
    await log.runMaintenance();
    assert.equal((await readAll(log, 'one-segment')).length, 20);
  } finally {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('compaction removes aborted transactions and keeps committed ones, also after reopening', async () => {
  const dir = fs.mkdtempSync(join(tmpdir(), 'flowagg-log-compaction-'));
  const options = { dir, segmentBytes: 4096, maintenanceInterval: '1h' };
  let log = await openEmbeddedLog(options);
  try {
    await log.admin().createTopics([{ topic: 'txn-state', partitions: 1, cleanupPolicy: 'compact' }]);
    const producer = log.transactionalProducer('compactor-test');
    for (let i = 0; i < 12; i++) {
      const txn = await producer.begin();
      await txn.send('txn-state', [{ key: Buffer.from(`key${i}`), value: pad(`value${i}`) }]);
      if (i % 3 === 0) await txn.abort();
      else await txn.commit();
    }
    await producer.close();
    const expected = (await readAll(log, 'txn-state')).map((r) => r.key!.toString());
    assert.deepEqual(expected, Array.from({ length: 12 }, (_, i) => i).filter((i) => i % 3 !== 0).map((i) => `key${i}`));
    const removed = async () => (await compactionRemovedRecords.get()).values.find((v) => v.labels.topic === 'txn-state')?.value ?? 0;
    const removedBefore = await removed();
    await log.runMaintenance();
    assert.equal(await removed(), removedBefore + 3, 'the aborted transactions of the closed segment (0, 3 and 6; 9 is in the active one) are counted removed');
    await log.close();
    log = await openEmbeddedLog(options);
    assert.deepEqual((await readAll(log, 'txn-state')).map((r) => r.key!.toString()), expected);
  } finally {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
