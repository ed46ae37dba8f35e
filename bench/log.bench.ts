// Message log throughput (issue 3) with 300-byte records. Append: several producers send batches of
// 1,000 records concurrently, as ingest's listeners do, with durable group commit (fsync policy
// 'always': a send resolves only after its batch is fdatasync'ed). Read: a consumer group reads the
// whole topic from the beginning through the public Consumer API.
//
// appendThroughput and readThroughput take any MessageLog, so the Kafka backend's cases can reuse them:
// see the KAFKA CASES mark below (or bench/kafka.bench.ts).
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fdatasync, writeAllAt } from '../lib/log/embedded/fs-util.js';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import type { MessageLog, ProduceRecord, RecordRun } from '../lib/log/types.js';
import { type BenchResult, type Benchmark, measure } from './types.js';

export const RECORD_BYTES = 300;
const APPEND_TARGET = 1_000_000;
const READ_TARGET = 2_000_000;

export interface AppendCase {
  readonly topic: string;
  readonly partitions: number;
  /** Concurrent producers, each sending one batch after the other, started a little apart (not in lockstep). */
  readonly producers: number;
  readonly batchRecords: number;
  /** As objects (Producer.send, default) or as runs of keyed records in one buffer (sendRuns, as ingest sends). */
  readonly form?: 'records' | 'runs';
}

/** Keyed 300-byte records (a 13-byte flow-key-like key, the rest value), built once and reused. */
export function makeRecords(count: number): ProduceRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const key = Buffer.from(`10.0.${(i >> 8) & 255}.${i & 255}`.padEnd(13, '|'));
    return { key, value: Buffer.alloc(RECORD_BYTES - key.length, i & 255) };
  });
}

/** The records back to back in one buffer, as ingest's transcoder writes them. */
function asRun(records: readonly ProduceRecord[]): RecordRun {
  const buf = Buffer.concat(records.flatMap((r) => [r.key!, r.value!]));
  const bounds = new Int32Array(records.length * 3);
  let at = 0;
  records.forEach((r, i) => {
    bounds[3 * i] = at;
    bounds[3 * i + 1] = at += r.key!.length;
    bounds[3 * i + 2] = at += r.value!.length;
  });
  return { buf, bounds };
}

/** Records appended per second, while `c.producers` send continuously. */
export async function appendThroughput(log: MessageLog, c: AppendCase, minMs = 3000): Promise<number> {
  await log.admin().createTopics([{ topic: c.topic, partitions: c.partitions }]);
  const batch = makeRecords(c.batchRecords);
  const runs = [asRun(batch)];
  let acked = 0;
  let stopping = false;
  let onAck = () => {};
  const producers = Array.from({ length: c.producers }, async (_, i) => {
    const producer = log.producer();
    // Real producers send when their batch is full, not all at the same instant: start them apart.
    await new Promise((resolve) => setTimeout(resolve, i));
    while (!stopping) {
      if (c.form === 'runs') await producer.sendRuns(c.topic, runs);
      else await producer.send(c.topic, batch);
      acked += batch.length;
      onAck();
    }
    await producer.close();
  });
  const step = c.producers * c.batchRecords;
  const rate = await measure(async () => {
    const target = acked + step;
    while (acked < target) await new Promise<void>((resolve) => (onAck = resolve));
  }, step, minMs);
  stopping = true;
  await Promise.all(producers);
  return rate;
}

/** Records read per second by a fresh consumer group reading the whole topic (`total` records). */
export async function readThroughput(log: MessageLog, topic: string, total: number, minMs = 3000, valuesInPlace = false): Promise<number> {
  let round = 0;
  const readAll = async () => {
    const consumer = log.consumer({ groupId: `bench-read-${round++}`, maxBatchRecords: 10_000, valuesInPlace });
    let seen = 0;
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    await consumer.subscribe([topic]);
    await consumer.run({
      eachBatch: async (batch) => {
        seen += batch.records.length;
        if (seen >= total) done();
      },
    });
    await finished;
    await consumer.stop();
  };
  return measure(readAll, total, minMs, 0);
}

async function totalRecords(log: MessageLog, topic: string): Promise<number> {
  return (await log.admin().fetchTopicOffsets(topic)).reduce((n, p) => n + p.high - p.low, 0);
}

/**
 * Writes and deletes a scratch file of `bytes`, so that the page-cache memory the benchmark then uses has
 * been touched once. On a VM whose host backs guest memory lazily, the first write into never-used
 * memory costs several times more than any later one (measured here: 8.7 ms vs 1.2 ms per 2.5 MB), which
 * would measure the hypervisor rather than the log.
 */
function touchPageCache(dir: string, bytes: number): void {
  const path = join(dir, 'warm-up.raw');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 2 ** 20, 1);
  try {
    for (let written = 0; written < bytes; written += chunk.length) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
    rmSync(path);
  }
}

/**
 * The disk's ceiling for the same work, without the log: one writev of `groupRecords` records' worth of
 * bytes then one fdatasync, again and again, in records/s. The log's append figure is read against it.
 */
async function rawGroupCommitCeiling(dir: string, groupRecords: number, minMs = 3000): Promise<number> {
  const fd = openSync(join(dir, 'ceiling.raw'), 'w');
  const group = Array.from({ length: groupRecords / 1000 }, () => Buffer.alloc(1000 * (RECORD_BYTES + 10), 1));
  let position = 0;
  try {
    return await measure(async () => {
      await writeAllAt(fd, group, position);
      position += group.length * group[0]!.length;
      await fdatasync(fd);
    }, groupRecords, minMs);
  } finally {
    closeSync(fd);
    rmSync(join(dir, 'ceiling.raw'));
  }
}

/** Runs `run` and returns its wall-time rate with the same work per CPU-second of this process (all threads). */
async function withCpu(run: () => Promise<number>): Promise<{ wall: number; cpu: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const wall = await run();
  const elapsed = performance.now() - t0;
  const used = process.cpuUsage(cpu0);
  return { wall, cpu: (wall * elapsed) / ((used.user + used.system) / 1000) };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const bench: Benchmark = async (say) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-log-bench-'));
  const results: BenchResult[] = [];
  try {
    // Below the kernel's background writeback threshold (10 % of RAM), so that the warm-up causes no disk I/O.
    touchPageCache(dir, 2 * 2 ** 30);
    const log = await openEmbeddedLog({ dir, fsync: { policy: 'always' }, segmentBytes: '256MiB' });
    const cases: (AppendCase & { label: string })[] = [
      { label: '1 partition, 8 producers × batches of 1,000', topic: 'bench-1p', partitions: 1, producers: 8, batchRecords: 1000 },
      { label: '4 partitions (keyed), 16 producers × batches of 1,000', topic: 'bench-4p', partitions: 4, producers: 16, batchRecords: 1000 },
      { label: '1 partition, 64 producers × batches of 100', topic: 'bench-small', partitions: 1, producers: 64, batchRecords: 100 },
      { label: '1 partition, 8 producers × runs of 1,000 (sendRuns, as ingest sends)', topic: 'bench-runs-1p', partitions: 1, producers: 8, batchRecords: 1000, form: 'runs' },
      { label: '4 partitions (keyed), 16 producers × runs of 1,000 (sendRuns)', topic: 'bench-runs-4p', partitions: 4, producers: 16, batchRecords: 1000, form: 'runs' },
    ];
    const ceiling = await rawGroupCommitCeiling(dir, 8000);
    say(`disk ceiling, writev + fdatasync of 8,000 records' bytes: ${fmt(ceiling)} records/s`);
    results.push({ name: 'disk ceiling: writev + fdatasync per 8,000 records, no log', value: ceiling, unit: 'records/s', note: 'the same bytes written and synced without the log, just before the append cases' });
    for (const c of cases) {
      const rate = await withCpu(() => appendThroughput(log, c));
      say(`append, ${c.label}: ${fmt(rate.wall)} records/s (${fmt(rate.cpu)} per CPU-second)`);
      const note = `${RECORD_BYTES} B records, fsync always (group commit); ${fmt(rate.cpu)} records per CPU-second`;
      results.push({ name: `embedded log append, ${c.label}`, value: rate.wall, unit: 'records/s', target: APPEND_TARGET, note });
    }
    for (const [topic, inPlace] of [['bench-1p', false], ['bench-4p', false], ['bench-1p', true], ['bench-4p', true]] as const) {
      const total = await totalRecords(log, topic);
      const rate = await withCpu(() => readThroughput(log, topic, total, 3000, inPlace));
      const how = inPlace ? ', values read in place (as the processor reads)' : '';
      say(`read ${topic}${how}: ${fmt(total)} records, ${fmt(rate.wall)} records/s (${fmt(rate.cpu)} per CPU-second)`);
      const note = `${fmt(total)} records of ${RECORD_BYTES} B, page cache warm; ${fmt(rate.cpu)} records per CPU-second`;
      results.push({ name: `embedded log read (consumer group from the start), ${topic}${how}`, value: rate.wall, unit: 'records/s', target: READ_TARGET, note });
    }
    await log.close();
    // KAFKA CASES: the Kafka backend's produce/consume figures (target 150,000 records/s each) can be added
    // here with openKafkaLog + appendThroughput/readThroughput, or in bench/kafka.bench.ts importing them.
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
};

export default bench;
