// The exactly-once, rebalance and replay tests of the processor, for both log backends (the embedded log
// in processor/exactly-once.test.ts, Kafka in processor/exactly-once.functional.test.ts): one input in
// flows.raw, processed by differently named groups into differently named output and changelog topics,
// whose outputs are then compared. The processing is deterministic (no wall-clock watermark advance), so
// every run that processes the input exactly once writes the same multiset of output records.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FlowRecordEncoder } from '../../simulate/antrea/records.js';
import { antreaWorkload } from '../../simulate/antrea/workload.js';
import { seededRandom } from '../../lib/prng.js';
import type { LogConfigInput } from '../../lib/log/config.js';
import { spawnTs } from '../../lib/log/embedded/testing/spawn.js';
import { committedRecords } from '../../lib/log/testing/committed-records.js';
import type { MessageLog, ProduceRecord } from '../../lib/log/types.js';
import { flowRecordReader } from '../../schemas/flow-record.js';
import { until } from '../../lib/testing/until.js';
import { processorConfig } from '../config.js';
import { createProcessor } from '../index.js';
import { waitCaughtUp } from './fakes.js';

export const INPUT_PARTITIONS = 4;
const CHILD = join(import.meta.dirname, 'processor-child.ts');

/** Names of one processing run: its group, output and changelog topics. */
export interface RunNames {
  readonly groupId: string;
  readonly output: string;
  readonly changelog: string;
}

export function runNames(label: string): RunNames {
  const id = `${label}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  return { groupId: `g-${id}`, output: `out-${id}`, changelog: `state-${id}` };
}

/** The processor configuration of a run: deterministic (no idle advance), commits often. */
export function runConfig(input: string, names: RunNames, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    processor: { groupId: names.groupId, commitInterval: 50, commitRecords: 5000, ...extra },
    log: { topics: { flowsRaw: input, flowsRawPartitions: INPUT_PARTITIONS, flowsProcessed: names.output, flowsProcessedPartitions: 3, processorState: names.changelog } },
  };
}

/** The first `count` records of a synthetic 6-Node Antrea workload, keyed as ingest keys them. */
export function inputRecords(count: number): ProduceRecord[] {
  const w = antreaWorkload({ nodes: 6, flows: Math.ceil(count / 8), recordsPerHalf: 5, seed: 42, ipv6Share: 0.1 });
  const encoder = new FlowRecordEncoder();
  const out: ProduceRecord[] = [];
  for (const r of w.records()) {
    if (out.length === count) break;
    out.push(encoder.flowRecord(r));
  }
  return out;
}

/** Sends records in order, 5,000 at a time. */
export async function sendAll(log: MessageLog, topic: string, records: readonly ProduceRecord[]): Promise<void> {
  const producer = log.producer();
  for (let i = 0; i < records.length; i += 5000) await producer.send(topic, records.slice(i, i + 5000));
  await producer.close();
}

/** Creates the input topic and writes `count` workload records to it. */
export async function writeInput(log: MessageLog, topic: string, count: number): Promise<void> {
  await log.admin().createTopics([{ topic, partitions: INPUT_PARTITIONS }]);
  await sendAll(log, topic, inputRecords(count));
}

export interface OutputRecord {
  readonly key: string;
  readonly value: string;
  readonly sequenceNumber: number;
  /** The flow's delta counters, common and per Node, as exported. */
  readonly deltas: readonly number[];
}

const DELTAS = ['octetDeltaCount', 'packetDeltaCount', 'reverseOctetDeltaCount', 'reversePacketDeltaCount'].flatMap((n) => [n, `${n}FromSourceNode`, `${n}FromDestinationNode`]);

/** Every committed record of `topic`, read read_committed from the start of every partition. */
export async function readOutputs(log: MessageLog, topic: string): Promise<OutputRecord[]> {
  const decode = flowRecordReader();
  return (await committedRecords(log, topic)).map((rec) => {
    const record = decode.decode(rec.value!);
    return { key: rec.key!.toString('hex'), value: rec.value!.toString('hex'), sequenceNumber: record.sequenceNumber, deltas: DELTAS.map((n) => record[n] as number) };
  });
}

/** Sums of every delta counter per flow key. */
function deltaSums(records: readonly OutputRecord[]): Map<string, number[]> {
  const sums = new Map<string, number[]>();
  for (const r of records) {
    const s = sums.get(r.key) ?? DELTAS.map(() => 0);
    r.deltas.forEach((d, i) => (s[i]! += d));
    sums.set(r.key, s);
  }
  return sums;
}

/**
 * The exactly-once check: no output record twice (no equal records, no flow exported twice under one
 * sequence number), every flow's delta sums equal the reference's, and the very same records.
 */
export function assertSameOutputs(actual: readonly OutputRecord[], expected: readonly OutputRecord[]): void {
  const seen = new Set<string>();
  for (const r of actual) {
    const id = `${r.key}/${r.sequenceNumber}`;
    assert.ok(!seen.has(id), `flow ${r.key} export ${r.sequenceNumber} appears twice`);
    seen.add(id);
  }
  assert.equal(new Set(actual.map((r) => r.value)).size, actual.length, 'no output record appears twice');
  assert.deepEqual(deltaSums(actual), deltaSums(expected), 'the sum of every delta counter per flow');
  assert.deepEqual(actual.map((r) => r.value).sort(), expected.map((r) => r.value).sort(), 'the same output records');
}

/**
 * Runs a processor in this process until its group committed `input` to its end, then stops it. With
 * `finish`, every flow is exported before the stop (end of input), so that the outputs hold the counters
 * of every input record and not only of the flows that expired.
 */
export async function processInProcess(log: MessageLog, input: string, names: RunNames, timeoutMs: number, finish = false): Promise<void> {
  const processor = createProcessor(processorConfig.parse(runConfig(input, names)), { log });
  await processor.start();
  try {
    await waitCaughtUp(log, names.groupId, input, timeoutMs);
    if (finish) await processor.finish();
  } finally {
    await processor.stop();
  }
}

export interface ChildRun {
  readonly log: LogConfigInput;
  readonly processor: Record<string, unknown>;
}

function spawnProcessor(run: ChildRun) {
  return spawnTs(CHILD, [JSON.stringify(run)]);
}

/** Runs a processor child to the end of its input and stops it. */
export async function processToEnd(run: ChildRun, timeoutMs = 300_000): Promise<void> {
  const child = spawnProcessor(run);
  try {
    await withTimeout(child.waitForLine((l) => l === 'caught-up'), timeoutMs, 'the processor to catch up');
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
  }
}

/**
 * Kills a processor child with SIGKILL `kills` times at random moments (while it restores, and while it
 * processes), starting it again each time; then lets the last one process to the end.
 */
export async function processWithKills(run: ChildRun, kills: number, random: () => number, timeoutMs = 300_000): Promise<{ during: string[] }> {
  const during: string[] = [];
  for (let k = 0; k < kills; k++) {
    const child = spawnProcessor(run);
    const early = random() < 0.25;
    if (!early) await withTimeout(Promise.race([child.waitForLine((l) => l === 'started'), child.exited]), timeoutMs, 'the processor to start');
    await sleep(Math.floor(random() * (early ? 1500 : 1200)));
    during.push(child.lines.includes('caught-up') ? 'after the end' : child.lines.includes('started') ? 'processing' : 'starting');
    child.proc.kill('SIGKILL');
    await child.exited;
  }
  await processToEnd(run, timeoutMs);
  return { during };
}

export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

export interface Backend {
  readonly name: string;
  /** The log configuration a child process opens. */
  readonly logConfig: LogConfigInput;
  readonly open: () => Promise<MessageLog>;
  /** The embedded log admits one process: the test closes its own while a child runs. */
  readonly exclusive: boolean;
  readonly timeoutMs: number;
}

/** Records in the exactly-once test, as issue 7 asks; fewer in the rebalance and replay tests. */
const KILL_RECORDS = 200_000;
const KILLS = 10;
const SCENARIO_RECORDS = 60_000;

/** The scenarios of issue 7 on one backend. */
export function exactlyOnceSuite(backend: Backend): void {
  describe(`processor exactly once, ${backend.name}`, () => {
    test(`${KILL_RECORDS.toLocaleString('en-US')} records, the processor killed with SIGKILL ${KILLS} times and restarted: the uninterrupted run's outputs, none twice`, async () => {
      const input = runNames('input').output;
      let log = await backend.open();
      await writeInput(log, input, KILL_RECORDS);
      if (backend.exclusive) await log.close();
      const straight = runNames('straight');
      const killed = runNames('killed');
      await processToEnd({ log: backend.logConfig, processor: runConfig(input, straight) }, backend.timeoutMs);
      const seed = Date.now() % 1_000_000;
      const { during } = await processWithKills({ log: backend.logConfig, processor: runConfig(input, killed) }, KILLS, seededRandom(seed), backend.timeoutMs);
      if (backend.exclusive) log = await backend.open();
      try {
        const expected = await readOutputs(log, straight.output);
        const actual = await readOutputs(log, killed.output);
        assert.ok(expected.length > KILL_RECORDS / 20, `outputs: ${expected.length}`);
        assert.ok(during.includes('processing'), `killed while processing (seed ${seed}: ${during.join(', ')})`);
        assertSameOutputs(actual, expected);
      } finally {
        await log.close();
      }
    });

    test('rebalance: a second instance joins mid-stream and later leaves; the outputs are exact', async () => {
      const log = await backend.open();
      try {
        const input = runNames('rebalance-input').output;
        const w = runNames('rebalance');
        await writeInput(log, input, 0);
        const chunks = inputChunks(log, input, SCENARIO_RECORDS, 6);
        const parse = (names: RunNames) => processorConfig.parse(runConfig(input, names));
        const first = createProcessor(parse(w), { log });
        await first.start();
        await chunks.write(0, 2);
        await waitCaughtUp(log, w.groupId, input, backend.timeoutMs);
        const second = createProcessor(parse(w), { log });
        await second.start();
        await until('the partitions to be shared', () => first.tasks().length < INPUT_PARTITIONS, { timeoutMs: backend.timeoutMs });
        await chunks.write(2, 4);
        await waitCaughtUp(log, w.groupId, input, backend.timeoutMs);
        assert.ok(second.stats().records > 0, 'the second instance processed records');
        await second.stop();
        await chunks.write(4, 6);
        await waitCaughtUp(log, w.groupId, input, backend.timeoutMs);
        assert.equal(first.tasks().length, INPUT_PARTITIONS, 'the first instance took every partition back');
        await first.stop();
        const reference = runNames('rebalance-reference');
        await processInProcess(log, input, reference, backend.timeoutMs);
        const expected = await readOutputs(log, reference.output);
        assert.ok(expected.length > 1000);
        assertSameOutputs(await readOutputs(log, w.output), expected);
      } finally {
        await log.close();
      }
    });

    test('replay: the group reset to the earliest offset reprocesses the input into a new output topic, giving the same records', async () => {
      const log = await backend.open();
      try {
        const input = runNames('replay-input').output;
        await writeInput(log, input, SCENARIO_RECORDS);
        const first = runNames('replay');
        await processInProcess(log, input, first, backend.timeoutMs);
        const expected = await readOutputs(log, first.output);
        await until('the group to be empty', async () => (await log.admin().listGroups()).find((g) => g.groupId === first.groupId)?.state === 'empty', { timeoutMs: backend.timeoutMs, intervalMs: 50 });
        await log.admin().resetGroupOffsets(first.groupId, input, { to: 'earliest' });
        // The same group and changelog: the state saved with the old offsets is set aside.
        const replay = { ...first, output: `${first.output}-replay` };
        await processInProcess(log, input, replay, backend.timeoutMs);
        assert.ok(expected.length > 1000);
        assertSameOutputs(await readOutputs(log, replay.output), expected);
      } finally {
        await log.close();
      }
    });
  });
}

/** The records of writeInput(count), written a chunk at a time, in order. */
function inputChunks(log: MessageLog, topic: string, count: number, chunks: number): { write(from: number, to: number): Promise<void> } {
  const all = inputRecords(count);
  const size = Math.ceil(all.length / chunks);
  return { write: (from, to) => sendAll(log, topic, all.slice(from * size, to * size)) };
}
