import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { isFlowaggError } from '../lib/errors.js';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { readAll } from '../lib/log/embedded/testing/read-all.js';
import { topicsSchema } from '../lib/log/topics.js';
import { crashingConsumers } from '../lib/log/testing/crashing-consumers.js';
import type { MessageLog } from '../lib/log/types.js';
import { registry } from '../lib/telemetry/metrics.js';
import { until } from '../lib/testing/until.js';
import { EXPORT_NO_WORKER } from './errors.js';
import { createExportRunner, type RunnerConfig, type RunnerDeps } from './runner.js';
import { TestDestination, numberedRecord, writeRecords } from './testing/records.js';
import type { ExportBatch } from './types.js';

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

function runner(log: MessageLog, exporter: TestDestination, extra: Partial<RunnerConfig> & Pick<RunnerDeps, 'logger'> = {}) {
  const { logger, ...config } = extra;
  return createExportRunner({ topics, backoff: FAST_BACKOFF, ...config }, { log, exporter, ...(logger && { logger }) });
}

async function committed(log: MessageLog, groupId: string): Promise<number[]> {
  const lag = await log.admin().fetchGroupLag(groupId);
  return [0, 1].map((p) => lag.find((l) => l.partition === p && l.topic === topics.flowsProcessed)?.committed ?? 0);
}

/** The source port of every record the destination accepted (numberedRecord i has 10000 + i). */
const ids = (batches: readonly ExportBatch[]) => batches.flatMap((b) => b.records.map((r) => (b.values.decode(r.value).sourceTransportPort as number) - 10000));

/** A logger whose lines a test reads back. */
function capturedLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { logger: pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) }), lines };
}

/** Lines above debug: what an operator sees. */
const said = (lines: readonly Record<string, unknown>[]) => lines.filter((l) => (l.level as number) > 20).map((l) => l.msg as string);

async function counterValue(name: string, exporter: string): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return metric?.values.filter((v) => v.labels.exporter === exporter).reduce((n, v) => n + v.value, 0) ?? 0;
}

const gaugeValue = counterValue;

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

await test('an outage delays delivery, loses nothing and duplicates nothing; consumption pauses meanwhile; logged once each way', async () => {
  await withLog(async (log) => {
    const dest = new TestDestination('flowlog', { maxRecords: 50, maxDelayMs: 20 });
    const { logger, lines } = capturedLogger();
    const r = runner(log, dest, { logger });
    await r.start();
    await writeRecords(log, topics.flowsProcessed, Array.from({ length: 100 }, (_, i) => numberedRecord(i)), (i) => i % 2);
    await dest.waitFor(100);
    dest.behaviour = 'down';
    await writeRecords(log, topics.flowsProcessed, Array.from({ length: 1900 }, (_, i) => numberedRecord(100 + i)), (i) => i % 2);
    await until('several failed deliveries', () => dest.attempts >= 8);
    const readiness = r.readiness();
    assert.equal(readiness.ready, true, 'the destination is not a reason to take the process out of service');
    assert.match(readiness.detail ?? '', /^exporter flowlog: destination unreachable since \d{4}-\d\d-\d\dT[\d:.]+Z, retrying: test destination is down \(\d+ offsets of flows.processed waiting, the oldest record read \d+ s ago\)$/);
    assert.equal(r.stats().retrying, 2);
    assert.equal(await gaugeValue('flowagg_export_retrying_partitions', 'flowlog'), 2, `each partition counted once while it retries, after ${dest.attempts} failed attempts`);
    await new Promise((res) => setTimeout(res, 200));
    assert.ok(r.stats().waiting <= 2 * 3 * 50, `paused: ${r.stats().waiting} records wait in memory, the rest stays in the log`);
    assert.deepEqual(await committed(log, r.groupId), [50, 50]);
    dest.behaviour = 'accept';
    await dest.waitFor(2000);
    await until('the readiness detail cleared', () => r.readiness().detail === undefined);
    assert.equal(await gaugeValue('flowagg_export_retrying_partitions', 'flowlog'), 0, 'no partition retrying once the destination took everything');
    await r.stop();
    assert.deepEqual(ids(dest.accepted).sort((a, b) => a - b), Array.from({ length: 2000 }, (_, i) => i));
    assert.deepEqual(await committed(log, r.groupId), [1000, 1000]);
    assert.equal(r.readiness().ready, false);
    const changes = said(lines).filter((m) => m.startsWith('destination'));
    assert.deepEqual(changes.map((m) => m.split(':')[0]), ['destination unreachable', 'destination reachable again'], `${dest.attempts} failed attempts, one line each way: ${changes.join(' | ')}`);
  });
});

await test('a destination unreachable at start: the runner runs, records wait in the log, and all arrive once when it answers', async () => {
  await withLog(async (log) => {
    const dest = new TestDestination('clickhouse', { maxRecords: 50, maxDelayMs: 20 });
    dest.behaviour = 'down';
    const { logger, lines } = capturedLogger();
    const r = runner(log, dest, { logger, probeIntervalMs: 20 });
    await r.start();
    assert.equal(r.state, 'running', 'start does not wait for the destination');
    await writeRecords(log, topics.flowsProcessed, Array.from({ length: 1000 }, (_, i) => numberedRecord(i)), (i) => i % 2);
    await until('start tried again with backoff', () => dest.startAttempts >= 3);
    assert.equal(dest.attempts, 0, 'nothing is delivered before the exporter started');
    const readiness = r.readiness();
    assert.equal(readiness.ready, true);
    assert.match(readiness.detail ?? '', /^exporter clickhouse: destination unreachable since .*, retrying: test destination is down/);
    const lag = await until('the lag measured from the log while paused', async () => {
      const v = (await registry.getMetricsAsJSON()).find((m) => m.name === 'flowagg_export_lag_records')!.values.filter((x) => x.labels.exporter === 'clickhouse');
      const total = v.reduce((n, x) => n + x.value, 0);
      return total >= 1000 && total;
    });
    assert.equal(lag, 1000);
    const age = await until('the age of the oldest waiting record', async () => (await gaugeValue('flowagg_export_oldest_unexported_age_seconds', 'clickhouse')) > 0.05);
    assert.ok(age);
    assert.equal(await gaugeValue('flowagg_export_destination_up', 'clickhouse'), 0);
    dest.behaviour = 'accept';
    await dest.waitFor(1000);
    await until('destination up', async () => (await gaugeValue('flowagg_export_destination_up', 'clickhouse')) === 1);
    await r.stop();
    assert.deepEqual(ids(dest.accepted).sort((a, b) => a - b), Array.from({ length: 1000 }, (_, i) => i));
    assert.deepEqual(await committed(log, r.groupId), [500, 500]);
    const changes = said(lines).filter((m) => m.startsWith('destination'));
    assert.deepEqual(changes.map((m) => m.split(':')[0]), ['destination unreachable at start', 'destination reachable again'], changes.join(' | '));
  });
});

await test('a runner stopped while its destination never answered stops at once and commits nothing', async () => {
  await withLog(async (log) => {
    const dest = new TestDestination('s3', { maxRecords: 50, maxDelayMs: 20 });
    dest.behaviour = 'down';
    const r = runner(log, dest, { backoff: { initialMs: 60_000, maxMs: 60_000 } });
    await r.start();
    await writeRecords(log, topics.flowsProcessed, Array.from({ length: 100 }, (_, i) => numberedRecord(i)), (i) => i % 2);
    await until('records read and held for the destination', () => r.readiness().detail?.includes('the oldest record read'));
    const before = Date.now();
    await r.stop();
    assert.ok(Date.now() - before < 5000, 'the backoff wait is cut short by the stop');
    assert.equal(r.state, 'stopped');
    assert.deepEqual(await committed(log, r.groupId), [0, 0]);
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

await test('a record that is not a FlowRecord is skipped, counted once however often its batch is delivered, and committed past', async () => {
  await withLog(async (log) => {
    // The three records are written in three sends: a delay long enough for them to meet in one batch
    // however slow the machine (CI of b21ad30: 10 ms split them).
    const dest = new TestDestination('flowlog', { maxRecords: 3, maxDelayMs: 500 });
    dest.behaviour = 'failAfterAccept';
    const before = await counterValue('flowagg_export_undecodable_records_total', 'flowlog');
    const r = runner(log, dest);
    await r.start();
    await writeRecords(log, topics.flowsProcessed, [numberedRecord(0)], () => 0);
    await log.producer().send(topics.flowsProcessed, [{ key: null, value: Buffer.from('not avro'), partition: 0 }]);
    await writeRecords(log, topics.flowsProcessed, [numberedRecord(1)], () => 0);
    await until('a delivery that failed after the destination took the batch', () => dest.attempts >= 2, { timeoutMs: 30_000 });
    dest.behaviour = 'accept';
    await until('the batch delivered', () => r.stats().delivered >= 2, { timeoutMs: 30_000 });
    await r.stop();
    assert.ok(dest.accepted.length >= 3);
    assert.ok(dest.accepted.every((b) => ids([b]).join() === '0,1'));
    assert.equal((await counterValue('flowagg_export_undecodable_records_total', 'flowlog')) - before, 1);
    assert.equal(r.stats().delivered, 2);
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
