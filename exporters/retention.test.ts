// An outage that outlasts the log's retention: the records retention removed before the exporter read
// them are counted (flowagg_export_lost_to_retention_offsets_total) and named in the log with their
// partition and offset range; everything else, including what the exporter held in memory, arrives once.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { topicsSchema } from '../lib/log/topics.js';
import { registry } from '../lib/telemetry/metrics.js';
import { until } from '../lib/testing/until.js';
import { createExportRunner } from './runner.js';
import { TestDestination, numberedRecord, writeRecords } from './testing/records.js';

const topics = topicsSchema.parse({ flowsProcessedPartitions: 2 });

async function lostToRetention(): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'flowagg_export_lost_to_retention_offsets_total');
  return metric?.values.filter((v) => v.labels.exporter === 'flowlog').reduce((n, v) => n + v.value, 0) ?? 0;
}

test('records retention removed before the exporter read them are counted and named; the rest arrives once', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-export-retention-'));
  // Small segments, and maintenance only when the test runs it.
  const log = await openEmbeddedLog({ dir, fsync: { policy: 'interval' }, segmentBytes: 4096, maintenanceInterval: '1h' });
  await log.admin().createTopics([{ topic: topics.flowsProcessed, partitions: 2, cleanupPolicy: 'delete', retentionBytes: 16_384 }]);
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const dest = new TestDestination('flowlog', { maxRecords: 50, maxDelayMs: 20 });
  const runner = createExportRunner({ log, topics, exporter: dest, logger, backoff: { initialMs: 20, maxMs: 100 } });
  const before = await lostToRetention();
  const TOTAL = 2000;
  // One send of 20 records is one batch of the log, larger than a segment: a segment each.
  const write = async (from: number, to: number) => {
    for (let i = from; i < to; i += 20) await writeRecords(log, topics.flowsProcessed, Array.from({ length: 20 }, (_, k) => numberedRecord(i + k)), () => 0);
  };
  try {
    await runner.start();
    await write(0, 100);
    await dest.waitFor(100);
    dest.behaviour = 'down';
    await write(100, TOTAL);
    await until('the exporter retrying with its partition paused', () => runner.stats().retrying === 1);
    await log.runMaintenance();
    const low = (await log.admin().fetchTopicOffsets(topics.flowsProcessed)).find((p) => p.partition === 0)!.low;
    assert.ok(low > 300, `retention moved the log start past what the exporter held (${low})`);
    dest.behaviour = 'accept';
    await until('the rest delivered', () => dest.accepted.some((b) => b.lastOffset === TOTAL - 1));
    await runner.stop();

    const delivered = dest.accepted.flatMap((b) => b.records.map((r) => r.offset));
    assert.equal(new Set(delivered).size, delivered.length, 'nothing delivered twice');
    const missing = Array.from({ length: TOTAL }, (_, i) => i).filter((i) => !delivered.includes(i));
    assert.ok(missing.length > 0, 'retention removed records the exporter had not read');
    const [first, last] = [missing[0]!, missing[missing.length - 1]!];
    assert.equal(last - first + 1, missing.length, 'what is missing is one range');
    assert.equal(last, low - 1, 'up to the new log start');
    assert.equal((await lostToRetention()) - before, missing.length, 'each removed record counted');
    const named = lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith("records removed by the log's retention"));
    assert.deepEqual(named.map((l) => [l.level, l.topic, l.partition, l.firstOffset, l.lastOffset, l.offsets]), [[50, topics.flowsProcessed, 0, first, last, missing.length]]);
  } finally {
    await runner.stop().catch(() => undefined);
    await log.close();
    await rm(dir, { recursive: true, force: true });
  }
});
