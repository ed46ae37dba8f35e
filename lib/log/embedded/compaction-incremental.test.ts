// Compaction is incremental, as Kafka's LogCleaner: a pass maps only the keys written since the last
// one, rewrites only the segments that lose records, and waits until enough was written since. The
// plan is a pure function (tested first); then the log itself, against a model of random updates and
// deletes cleaned at random moments.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Counter } from 'prom-client';
import type { LogRecord } from '../types.js';
import { planCompaction } from './compaction-plan.js';
import { openEmbeddedLog } from './index.js';
import { compactionPasses, compactionRewrittenSegments } from './metrics.js';
import { readAll } from './testing/read-all.js';
import { seededRandom } from '../../prng.js';

const HOUR = 3_600_000;
const segment = (baseOffset: number, nextOffset: number, size: number) => ({ baseOffset, nextOffset, size });

test('a pass covers the closed segments below the last stable offset, once the dirty ones are their share', () => {
  const closed = [segment(0, 10, 1000), segment(10, 20, 1000), segment(20, 30, 1000), segment(30, 40, 1000)];
  assert.deepEqual(planCompaction(closed, 35, undefined, 0.5, 0), { segments: closed.slice(0, 3), firstDirty: 0 }, 'no checkpoint: all dirty; past the LSO left out');
  assert.equal(planCompaction(closed, 5, undefined, 0.5, 0), null, 'nothing closed below the LSO');
  const cleanTo20 = { firstDirty: 20, nextTombstoneExpiry: Infinity };
  assert.equal(planCompaction(closed.slice(0, 3), 40, cleanTo20, 0.5, 0), null, '1,000 dirty bytes of 3,000: below half');
  assert.deepEqual(planCompaction(closed, 40, cleanTo20, 0.5, 0)?.firstDirty, 20, '2,000 of 4,000: due, mapping from 20');
  assert.equal(planCompaction(closed.slice(0, 2), 40, cleanTo20, 0, 0), null, 'nothing dirty: no pass even at ratio 0');
  assert.deepEqual(planCompaction(closed.slice(0, 2), 40, { firstDirty: 20, nextTombstoneExpiry: 99 }, 0.5, 100)?.segments, closed.slice(0, 2), 'a tombstone expired: due with nothing dirty');
});

/** A counter's value for topic "state" (0 before its first increment). */
const stateCount = async (counter: Counter<'topic'>) => (await counter.get()).values.find((v) => v.labels.topic === 'state')?.value ?? 0;

const pad = (s: string) => Buffer.from(s.padEnd(300, '.'));
const segmentFiles = (dir: string) =>
  new Map(fs.readdirSync(join(dir, 'state-0')).filter((f) => f.endsWith('.log')).map((f) => [f, fs.statSync(join(dir, 'state-0', f)).ino]));

test('a pass rewrites only the segments that lose records, and waits for the dirty ratio', async () => {
  const dir = fs.mkdtempSync(join(tmpdir(), 'flowagg-log-compaction-'));
  const log = await openEmbeddedLog({ dir, segmentBytes: 4096, maintenanceInterval: '1h', minCleanableDirtyRatio: 0.5 });
  const send = (keys: readonly string[], tag: string) => log.producer().send('state', keys.map((k) => ({ key: Buffer.from(k), value: pad(`${k} ${tag}`) })));
  try {
    await log.admin().createTopics([{ topic: 'state', partitions: 1, cleanupPolicy: 'compact' }]);
    const keys = Array.from({ length: 120 }, (_, i) => `k${i}`);
    for (let i = 0; i < keys.length; i += 10) await send(keys.slice(i, i + 10), 'v1');
    await send(keys.slice(0, 4), 'v2');
    await log.runMaintenance();
    const cleaned = segmentFiles(dir);
    assert.ok(cleaned.size > 8, `${cleaned.size} segments`);

    await send(['k0', 'k1'], 'v3');
    await send(['filler'], 'roll');
    await log.runMaintenance();
    assert.deepEqual(segmentFiles(dir).get('00000000000000000000.log'), cleaned.get('00000000000000000000.log'), 'a few dirty bytes: not yet due');

    for (let i = 0; i < 150; i++) await send([`new${i}`], 'v1');
    const [passes, rewrittenBefore] = [await stateCount(compactionPasses), await stateCount(compactionRewrittenSegments)];
    await log.runMaintenance();
    const after = segmentFiles(dir);
    const rewritten = [...cleaned].filter(([f, ino]) => after.get(f) !== ino).map(([f]) => f);
    assert.equal(await stateCount(compactionPasses), passes + 1, 'one pass, counted');
    assert.equal(await stateCount(compactionRewrittenSegments), rewrittenBefore + rewritten.length, 'its rewritten segments, counted');
    assert.ok(rewritten.includes('00000000000000000000.log'), 'the segment holding k0 and k1 lost them');
    assert.ok(rewritten.length <= 3, `only the segments holding superseded records are rewritten: ${rewritten.join(', ')}`);
    const latest = new Map((await readAll(log, 'state')).map((r) => [r.key!.toString(), r.value!.toString().replace(/\.+$/, '')]));
    assert.equal(latest.get('k0'), 'k0 v3');
    assert.equal(latest.get('k3'), 'k3 v2');
    assert.equal(latest.get('k119'), 'k119 v1');
  } finally {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('where the clean segments end survives a restart; an unreadable checkpoint only makes the next pass full', async () => {
  const dir = fs.mkdtempSync(join(tmpdir(), 'flowagg-log-compaction-'));
  const options = { dir, segmentBytes: 4096, maintenanceInterval: '1h', minCleanableDirtyRatio: 0.5 };
  let log = await openEmbeddedLog(options);
  const send = (keys: readonly string[], tag: string) => log.producer().send('state', keys.map((k) => ({ key: Buffer.from(k), value: pad(`${k} ${tag}`) })));
  const first = '00000000000000000000.log';
  try {
    await log.admin().createTopics([{ topic: 'state', partitions: 1, cleanupPolicy: 'compact' }]);
    for (let i = 0; i < 120; i += 10) await send(Array.from({ length: 10 }, (_, j) => `k${i + j}`), 'v1');
    await log.runMaintenance();
    const cleaned = segmentFiles(dir).get(first);
    await log.close();

    log = await openEmbeddedLog(options);
    await send(['k0'], 'v2');
    await send(Array.from({ length: 10 }, (_, i) => `filler${i}`), 'roll');
    await log.runMaintenance();
    assert.equal(segmentFiles(dir).get(first), cleaned, 'after a restart, a few dirty bytes are still not due');
    await log.close();

    fs.writeFileSync(join(dir, 'cleaner-offset-checkpoint.json'), '{"partitions": {"state/0": {"firstDirty": "garbled"}}');
    log = await openEmbeddedLog(options);
    await log.runMaintenance();
    assert.notEqual(segmentFiles(dir).get(first), cleaned, 'with the checkpoint unreadable, the pass maps everything and k0 v1 goes');
    const values = (await readAll(log, 'state')).filter((r) => r.key!.toString() === 'k0').map((r) => r.value!.toString().replace(/\.+$/, ''));
    assert.deepEqual(values, ['k0 v2']);
  } finally {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a pass maps at most cleanerMapKeys keys; the dirty segments past them wait for the next pass', async () => {
  const dir = fs.mkdtempSync(join(tmpdir(), 'flowagg-log-compaction-'));
  const log = await openEmbeddedLog({ dir, segmentBytes: 4096, maintenanceInterval: '1h', minCleanableDirtyRatio: 0, cleanerMapKeys: 15 });
  const send = (prefix: string, tag: string) => log.producer().send('state', Array.from({ length: 10 }, (_, i) => ({ key: Buffer.from(`${prefix}${i}`), value: pad(`${prefix}${i} ${tag}`) })));
  const valuesOf = async (key: string) => (await readAll(log, 'state')).filter((r) => r.key!.toString() === key).map((r) => r.value!.toString().replace(/\.+$/, ''));
  try {
    await log.admin().createTopics([{ topic: 'state', partitions: 1, cleanupPolicy: 'compact' }]);
    await send('a', 'v1');
    await send('b', 'v1');
    await send('a', 'v2');
    await send('filler', 'v1');
    await send('roll', 'v1');
    await log.runMaintenance();
    assert.deepEqual(await valuesOf('a0'), ['a0 v1', 'a0 v2'], 'the first pass mapped a* and b* (20 keys, past 15), not the segment holding a* v2');
    await log.runMaintenance();
    assert.deepEqual(await valuesOf('a0'), ['a0 v2'], 'the next pass mapped it');
    assert.deepEqual(await valuesOf('b9'), ['b9 v1']);
  } finally {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** What a reader must find: each key's latest value, or no record at all for a deleted key whose tombstone expired. */
function checkAgainstModel(records: readonly LogRecord[], model: ReadonlyMap<string, string | null>, label: string): void {
  const seen = new Map<string, string | null>();
  for (const r of records) seen.set(r.key!.toString(), r.value === null ? null : r.value.toString().replace(/\.+$/, ''));
  for (const [key, value] of model) {
    if (value !== null) assert.equal(seen.get(key), value, `${label}: ${key}`);
    else assert.ok(seen.get(key) === undefined || seen.get(key) === null, `${label}: ${key} was deleted, found ${seen.get(key)}`);
  }
}

test('random updates and deletes, cleaned at random moments and ratios, always read back as the model says', async () => {
  for (const seed of [1, 2, 3]) {
    const random = seededRandom(seed);
    const dir = fs.mkdtempSync(join(tmpdir(), 'flowagg-log-compaction-'));
    const ratio = [0, 0.3, 0.5][seed - 1]!;
    const mapKeys = [1_000_000, 20, 8][seed - 1]!;
    const log = await openEmbeddedLog({ dir, segmentBytes: 4096, maintenanceInterval: '1h', tombstoneRetention: HOUR, minCleanableDirtyRatio: ratio, cleanerMapKeys: mapKeys });
    const model = new Map<string, string | null>();
    let now = Date.now();
    try {
      await log.admin().createTopics([{ topic: 'state', partitions: 1, cleanupPolicy: 'compact' }]);
      for (let round = 0; round < 12; round++) {
        const batch = Array.from({ length: 5 + Math.floor(random() * 30) }, (_, i) => {
          const key = `k${Math.floor(random() * 60)}`;
          const value = random() < 0.15 ? null : `${key} r${round} i${i}`;
          model.set(key, value);
          return { key: Buffer.from(key), value: value === null ? null : pad(value), timestamp: now };
        });
        await log.producer().send('state', batch);
        if (random() < 0.5) {
          now += random() < 0.3 ? 2 * HOUR : 60_000;
          await log.runMaintenance(now);
        }
        checkAgainstModel(await readAll(log, 'state'), model, `seed ${seed} ratio ${ratio} map ${mapKeys} round ${round}`);
      }
    } finally {
      await log.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
});
