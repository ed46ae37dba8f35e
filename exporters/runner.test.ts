import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isFlowaggError } from '../lib/errors.js';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { readAll } from '../lib/log/embedded/testing/read-all.js';
import { topicsSchema } from '../lib/log/topics.js';
import { crashingConsumers } from '../lib/log/testing/crashing-consumers.js';
import { type MessageLog } from '../lib/log/types.js';
import { registry } from '../lib/telemetry/metrics.js';
import { until } from '../lib/testing/until.js';
import { EXPORT_NO_WORKER } from './errors.js';
import { createExportRunner, type RunnerConfig } from './runner.js';
import { TestDestination, numberedRecord, writeRecords } from './testing/records.js';
import { type ExportBatch } from './types.js';

const topics = topicsSchema.parse({ flowsProcessedPartitions: 2 });
const FAST_BACKOFF = { initialMs: 20, maxMs: 100 };

async function withLog(fn: (log: MessageLog, dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-runner-'));
  const log = await openEmbeddedLog({ dir, fsync: { policy: 'interval' } });
  try {
    await fn(log, dir);
  } finally {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function runner(log: MessageLog, exporter: TestDestination, extra: Partial<RunnerConfig> = {}) {
  return createExportRunner({ topics, backoff: FAST_BACKOFF, ...extra }, { log, exporter });
}

async function committed(log: MessageLog, groupId: string): Promise<number[]> {
  const lag = await log.admin().fetchGroupLag(groupId);
  return [0, 1].map((p) => lag.find((l) => l.partition === p && l.topic === topics.flowsProcessed)?.committed ?? 0);
}

/** The source port of every record the destination accepted (numberedRecord i has 10000 + i). */
const ids = (batches: readonly ExportBatch[]) => batches.flatMap((b) => b.records.map((r) => (r.record.sourceTransportPort as number) - 10000));

async function counterValue(name: string, exporter: string): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return metric?.values.filter((v) => v.labels.exporter === exporter).reduce((n, v) => n + v.value, 0) ?? 0;
}

await test('every record reaches the destination once, in batches cut from offsets, and is committed after', async () => {
  await withLog(async (log) => {
    const dest = new TestDestination('flowlog', { maxRecords: 100, maxDelayMs: 30 });
    const r = runner(log, dest);
    await r.start();
    await writeRecords(log, topics.flowsProcessed, Array.from({ length: 1050 }, (_, i) => numberedRecord(i)), (i) => i % 2);
    await dest.waitFor(1050);
    await r.stop();
    assert.deepEqual(ids(dest.accepted).sort((a, b) => a - b), Array.from({ length: 1050 }, (_, i) => i));
    for (const b of dest.accepted) {
      assert.equal(b.id, `${b.topic}/${b.partition}/${b.firstOffset}-${b.lastOffset}`);
      assert.ok(b.records.length <= 100);
      assert.deepEqual(b.records.map((x) => x.offset), Array.from({ length: b.lastOffset - b.firstOffset + 1 }, (_, k) => b.firstOffset + k));
    }
    // Per partition, batches follow each other without gap or overlap.
    for (const p of [0, 1]) {
      const mine = dest.accepted.filter((b) => b.partition === p);
      mine.forEach((b, k) => assert.equal(b.firstOffset, k === 0 ? 0 : mine[k - 1]!.lastOffset + 1));
    }
    assert.deepEqual(await committed(log, r.groupId), [525, 525]);
    // The recorded ranges are ranges only, one per partition once compacted.
    const ranges = (await readAll(log, topics.exportBatches)).map((x) => JSON.parse(x.value!.toString()) as Record<string, unknown>);
    assert.ok(ranges.length >= 2);
    for (const range of ranges) assert.deepEqual(Object.keys(range).sort(), ['firstOffset', 'lastOffset', 'partition', 'topic']);
  });
});

await test('an outage delays delivery, loses nothing and duplicates nothing; consumption pauses meanwhile', async () => {
  await withLog(async (log) => {
    const dest = new TestDestination('flowlog', { maxRecords: 50, maxDelayMs: 20 });
    dest.behaviour = 'down';
    const r = runner(log, dest);
    await r.start();
    await writeRecords(log, topics.flowsProcessed, Array.from({ length: 2000 }, (_, i) => numberedRecord(i)), (i) => i % 2);
    await until('six delivery attempts', () => dest.attempts >= 6);
    assert.equal(r.readiness().ready, false);
    assert.match(r.readiness().detail ?? '', /refuses batch .* test destination is down/);
    assert.equal(r.stats().retrying, 2);
    await new Promise((res) => setTimeout(res, 200));
    assert.ok(r.stats().waiting <= 2 * 3 * 50, `paused: ${r.stats().waiting} records wait in memory, the rest stays in the log`);
    assert.deepEqual(await committed(log, r.groupId), [0, 0]);
    dest.behaviour = 'accept';
    await dest.waitFor(2000);
    await r.stop();
    assert.deepEqual(ids(dest.accepted).sort((a, b) => a - b), Array.from({ length: 2000 }, (_, i) => i));
    assert.deepEqual(await committed(log, r.groupId), [1000, 1000]);
    assert.equal(r.readiness().ready, false);
  });
});

await test('a batch taken by the destination but not committed (crash) is cut again exactly, with the same id, and counted', async () => {
  await withLog(async (log) => {
    // Cut by time: the first batch holds the 5 records that had arrived, not a multiple of maxRecords.
    const first = new TestDestination('s3', { maxRecords: 1000, maxDelayMs: 30 });
    first.behaviour = 'acceptThenHang';
    const r1 = runner(log, first, { stopTimeoutMs: 50 });
    await r1.start();
    await writeRecords(log, topics.flowsProcessed, Array.from({ length: 5 }, (_, i) => numberedRecord(i)), () => 0);
    await first.waitFor(5);
    await r1.stop();
    assert.deepEqual(await committed(log, r1.groupId), [0, 0], 'nothing committed: the batch was never acknowledged');
    await writeRecords(log, topics.flowsProcessed, Array.from({ length: 5 }, (_, i) => numberedRecord(5 + i)), () => 0);

    const before = await counterValue('flowagg_export_redelivered_records_total', 's3');
    const second = new TestDestination('s3', { maxRecords: 1000, maxDelayMs: 30 });
    const r2 = runner(log, second);
    await r2.start();
    await second.waitFor(10);
    await r2.stop();
    const [again, next] = second.accepted;
    assert.equal(again!.id, first.accepted[0]!.id);
    assert.deepEqual(ids([again!]), [0, 1, 2, 3, 4]);
    assert.deepEqual(ids([next!]), [5, 6, 7, 8, 9]);
    assert.equal((await counterValue('flowagg_export_redelivered_records_total', 's3')) - before, 5);
    assert.deepEqual(await committed(log, r2.groupId), [10, 0]);
  });
});

await test('a failure after the destination took part of a batch counts the retry as redelivered', async () => {
  await withLog(async (log) => {
    const dest = new TestDestination('clickhouse', { maxRecords: 10, maxDelayMs: 20 });
    dest.behaviour = 'failAfterAccept';
    const before = await counterValue('flowagg_export_redelivered_records_total', 'clickhouse');
    const r = runner(log, dest);
    await r.start();
    await writeRecords(log, topics.flowsProcessed, Array.from({ length: 10 }, (_, i) => numberedRecord(i)), () => 1);
    await dest.waitFor(10);
    dest.behaviour = 'accept';
    await dest.waitFor(20);
    await r.stop();
    assert.equal(dest.accepted[0]!.id, dest.accepted[1]!.id);
    assert.equal((await counterValue('flowagg_export_redelivered_records_total', 'clickhouse')) - before, 10);
    assert.deepEqual(await committed(log, r.groupId), [0, 10]);
  });
});

await test('stop waits for the batch in flight and commits it: no redelivery at the next start', async () => {
  await withLog(async (log) => {
    const dest = new TestDestination('ipfix', { maxRecords: 20, maxDelayMs: 10 }, 300);
    const r = runner(log, dest);
    await r.start();
    await writeRecords(log, topics.flowsProcessed, Array.from({ length: 20 }, (_, i) => numberedRecord(i)), () => 0);
    await until('the batch in flight', () => dest.attempts > 0);
    await r.stop();
    assert.equal(dest.records, 20);
    assert.deepEqual(await committed(log, r.groupId), [20, 0]);
    const again = new TestDestination('ipfix', { maxRecords: 20, maxDelayMs: 10 });
    const r2 = runner(log, again);
    await r2.start();
    await writeRecords(log, topics.flowsProcessed, [numberedRecord(20)], () => 0);
    await again.waitFor(1);
    await r2.stop();
    assert.deepEqual(ids(again.accepted), [20]);
  });
});

await test('a record that is not a FlowRecord is skipped, counted and committed past', async () => {
  await withLog(async (log) => {
    const dest = new TestDestination('flowlog', { maxRecords: 3, maxDelayMs: 10 });
    const before = await counterValue('flowagg_export_undecodable_records_total', 'flowlog');
    const r = runner(log, dest);
    await r.start();
    await writeRecords(log, topics.flowsProcessed, [numberedRecord(0)], () => 0);
    await log.producer().send(topics.flowsProcessed, [{ key: null, value: Buffer.from('not avro'), partition: 0 }]);
    await writeRecords(log, topics.flowsProcessed, [numberedRecord(1)], () => 0);
    await dest.waitFor(2);
    await r.stop();
    assert.deepEqual(ids(dest.accepted), [0, 1]);
    assert.equal((await counterValue('flowagg_export_undecodable_records_total', 'flowlog')) - before, 1);
    assert.deepEqual(await committed(log, r.groupId), [3, 0]);
  });
});

await test('a batch of a partition the runner has no worker for fails loudly and is not taken', async () => {
  await withLog(async (embedded) => {
    const log = crashingConsumers(embedded);
    const dest = new TestDestination('flowlog', { maxRecords: 100, maxDelayMs: 30 });
    const r = runner(log, dest);
    await r.start();
    const [handlers] = log.handlersOf(r.groupId);
    const stray = { topic: topics.flowsProcessed, partition: 7, records: [], highWatermark: 0 };
    await assert.rejects(handlers!.eachBatch(stray), (err) => isFlowaggError(err, EXPORT_NO_WORKER) && /flows.processed-7/.test(err.message));
    await r.stop();
    assert.deepEqual(dest.accepted, []);
  });
});
