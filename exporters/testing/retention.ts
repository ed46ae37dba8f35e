// The scenario of an outage that outlasts the log's retention, for either backend: records flow to a
// destination, the destination goes down while more are written, part of the log is removed (by the
// backend's retention, or Kafka's DeleteRecords) beyond what the exporter read, and the destination
// comes back. What a test then checks: what was removed is counted and named, the rest arrived once.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { type TopicsConfig, topicsSchema } from '../../lib/log/topics.js';
import type { MessageLog } from '../../lib/log/types.js';
import { registry } from '../../lib/telemetry/metrics.js';
import { until } from '../../lib/testing/until.js';
import { createExportRunner } from '../runner.js';
import { TestDestination, numberedRecord, writeRecords } from './records.js';

export interface RetentionOutcome {
  readonly topics: TopicsConfig;
  /** The log start of partition 0 once records were removed. */
  readonly low: number;
  /** Offsets of partition 0 the destination accepted, in order of delivery. */
  readonly delivered: readonly number[];
  readonly total: number;
  /** Growth of flowagg_export_lost_to_retention_offsets_total{exporter="flowlog"}. */
  readonly counted: number;
  /** The error lines the runner logged about records retention removed. */
  readonly named: readonly Record<string, unknown>[];
}

async function lostToRetention(): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'flowagg_export_lost_to_retention_offsets_total');
  return metric?.values.filter((v) => v.labels.exporter === 'flowlog').reduce((n, v) => n + v.value, 0) ?? 0;
}

/**
 * Runs the scenario on `log` with topics of their own. `prepare` creates flows.processed (with the
 * retention `remove` relies on); `remove` takes records of partition 0 out of the log (past offset 300,
 * beyond what the exporter holds in memory) and resolves once the log start moved.
 */
export async function outageOutlastingRetention(log: MessageLog, prepare: (topics: TopicsConfig) => Promise<void>, remove: (topics: TopicsConfig) => Promise<void>): Promise<RetentionOutcome> {
  const id = randomBytes(3).toString('hex');
  const topics = topicsSchema.parse({ flowsProcessed: `retention-processed-${id}`, exportBatches: `retention-batches-${id}`, flowsProcessedPartitions: 2 });
  await prepare(topics);
  const named: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => {
    const l = JSON.parse(line) as Record<string, unknown>;
    if (typeof l.msg === 'string' && l.msg.startsWith("records removed by the log's retention")) named.push(l);
  } });
  const dest = new TestDestination('flowlog', { maxRecords: 50, maxDelayMs: 20 });
  const runner = createExportRunner({ topics, groupId: `retention-${id}`, backoff: { initialMs: 20, maxMs: 100 } }, { log, exporter: dest, logger });
  const before = await lostToRetention();
  const total = 2000;
  // Sends of 20 records: one batch of the log each, larger than a small segment.
  const write = async (from: number, to: number) => {
    for (let i = from; i < to; i += 20) await writeRecords(log, topics.flowsProcessed, Array.from({ length: 20 }, (_, k) => numberedRecord(i + k)), () => 0);
  };
  try {
    await runner.start();
    await write(0, 100);
    await dest.waitFor(100);
    dest.behaviour = 'down';
    await write(100, total);
    await until('the exporter retrying with its partition paused', () => runner.stats().retrying === 1);
    await remove(topics);
    const low = (await log.admin().fetchTopicOffsets(topics.flowsProcessed)).find((p) => p.partition === 0)!.low;
    dest.behaviour = 'accept';
    await until('the rest delivered', () => dest.accepted.some((b) => b.lastOffset === total - 1), { timeoutMs: 60_000 });
    await runner.stop();
    return { topics, low, delivered: dest.accepted.flatMap((b) => b.records.map((r) => r.offset)), total, counted: (await lostToRetention()) - before, named };
  } finally {
    await runner.stop().catch(() => undefined);
  }
}

/** What both backends must show. */
export function assertLossCountedAndNamed(o: RetentionOutcome): void {
  assert.ok(o.low > 300, `the log start moved past what the exporter held (${o.low})`);
  assert.equal(new Set(o.delivered).size, o.delivered.length, 'nothing delivered twice');
  const missing = Array.from({ length: o.total }, (_, i) => i).filter((i) => !o.delivered.includes(i));
  assert.ok(missing.length > 0, 'records the exporter had not read were removed');
  const [first, last] = [missing[0]!, missing[missing.length - 1]!];
  assert.equal(last - first + 1, missing.length, 'what is missing is one range');
  assert.equal(last, o.low - 1, 'up to the new log start');
  assert.equal(o.counted, missing.length, 'each removed record counted');
  assert.deepEqual(o.named.map((l) => [l.level, l.topic, l.partition, l.firstOffset, l.lastOffset, l.offsets]), [[50, o.topics.flowsProcessed, 0, first, last, missing.length]]);
}
