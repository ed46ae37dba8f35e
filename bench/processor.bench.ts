// The processor (issue 7) on one core with durability: a synthetic 6-Node Antrea workload (simulate/antrea,
// about 5 records per half) written to flows.raw on an embedded log (fsync on every group commit), then
// consumed by a processor in this process: consume, scan, aggregate or proxy, encode, produce, commit
// (transactions of outputs, changelog and input offsets). One input partition, so one task on one core.
// Throughput is counted per second of CPU time this process got (the consumer, the log and the
// processor all run in it), which a shared machine distorts less than wall time; the wall figure is in
// the note. Memory: the flow store's bytes per active flow, heap and typed arrays, after a GC, with the
// Aggregator fed directly (the log's buffers would blur it).
// PROCESSOR_BENCH_FLOWS=100000 limits the run to those sizes; PROCESSOR_BENCH_PROFILE=DIR writes a CPU
// profile of each processing run (not of writing the input) to DIR/<mode>-<flows>-<case>.cpuprofile.
// PROCESSOR_BENCH_MAINTENANCE=10s runs the log's retention and compaction that often (default 60 s, the
// log's own default), so that a run of a minute or two holds the passes a long-running processor has.
// PROCESSOR_BENCH_MODES=Proxy,Floor runs only the cases of those modes (Core, Aggregate, Proxy, Floor;
// Core is the aggregation alone, with no log: bench/processor-core.ts); with none of them
// (PROCESSOR_BENCH_MODES=memory) only the memory per flow is measured.
// Each case starts on pages freed a moment before (bench/page-cache.ts); PROCESSOR_BENCH_PAGES=cold runs
// it on what the machine gives, and each case's note says the kernel's share of its CPU.
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlowRecordEncoder } from '../simulate/antrea/records.js';
import { antreaWorkload, type Workload } from '../simulate/antrea/workload.js';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import type { MessageLog, ProduceRecord } from '../lib/log/types.js';
import { FlowRecordScanner, ScannedRecord } from '../schemas/flow-record-scanner.js';
import { Aggregator } from '../processor/aggregate/aggregator.js';
import { ChangelogRecords } from '../processor/aggregate/changelog-records.js';
import { compileOutputEncoder } from '../processor/aggregate/output.js';
import { processorConfig } from '../processor/config.js';
import { createProcessor } from '../processor/index.js';
import { processorMetrics } from '../processor/metrics.js';
import { aggregatorSettings, waitCaughtUp } from '../processor/testing/fakes.js';
import { componentLogger } from '../lib/telemetry/logger.js';
import { type BenchResult, type Benchmark, type CpuSplit, cpuOfRun } from './types.js';
import { copyThrough } from './log-floor.js';
import { aggregateInMemory, encodeAll } from './processor-core.js';
import { reportsFreePages, warmPageCache } from './page-cache.js';

const NODES = 6;
const RECORDS_PER_HALF = 5;
const SIZES = (process.env.PROCESSOR_BENCH_FLOWS ?? '100000,1000000').split(',').map(Number);
const TARGETS: Record<string, Record<number, number>> = { aggregate: { 100_000: 250_000, 1_000_000: 200_000 }, proxy: { 100_000: 300_000, 1_000_000: 300_000 } };
const MODES = (process.env.PROCESSOR_BENCH_MODES ?? 'Core,Aggregate,Proxy,Floor').split(',');
const WARM_PAGES = process.env.PROCESSOR_BENCH_PAGES !== 'cold';

const workload = (flows: number): Workload => antreaWorkload({ nodes: NODES, flows, recordsPerHalf: RECORDS_PER_HALF, seed: 7, ipv6Share: 0.1 });

/** Writes the workload's records to a one-partition topic, 5,000 per send; returns how many. */
async function writeInput(log: MessageLog, topic: string, flows: number): Promise<number> {
  await log.admin().createTopics([{ topic, partitions: 1 }]);
  const producer = log.producer();
  const encoder = new FlowRecordEncoder();
  let batch: ProduceRecord[] = [];
  let count = 0;
  for (const r of workload(flows).records()) {
    const { key, value } = encoder.flowRecord(r);
    batch.push({ key, value });
    if (batch.length === 5000) {
      await producer.send(topic, batch);
      count += batch.length;
      batch = [];
    }
  }
  if (batch.length > 0) await producer.send(topic, batch);
  await producer.close();
  return count + batch.length;
}

interface Run extends CpuSplit {
  readonly flows: number;
  readonly outputs: number;
  readonly changelog: number;
}

interface Case {
  readonly mode: 'Aggregate' | 'Proxy' | 'Floor';
  readonly name: string;
  readonly settings: (flows: number) => object;
  /** Floor only: whether each value is scanned too. */
  readonly scan?: boolean;
}

/**
 * The runs at each size: aggregate with the default checkpoints (the input read as fast as it comes, as
 * after a backlog: a checkpoint at the first commit and at the stop); with a checkpoint whenever every flow
 * changed (as at the Agents' pace, where a 10 s checkpoint sees each flow change about four times: a
 * checkpoint every round of the workload's exports is the pessimistic case); with one at every commit
 * (Kafka Streams' way, before checkpoints); with checkpoints far apart (docs/processor.md: for a million
 * flows and more); proxy; the log's floor (bench/log-floor.ts).
 */
const CASES: readonly Case[] = [
  { mode: 'Aggregate', name: '', settings: () => ({}) },
  { mode: 'Aggregate', name: ', a checkpoint whenever every flow changed', settings: (flows: number) => ({ checkpointRecords: flows }) },
  { mode: 'Aggregate', name: ', a checkpoint at every commit', settings: () => ({ checkpointInterval: 0 }) },
  { mode: 'Aggregate', name: ', checkpoints every 60 s or 4,000,000 changes', settings: () => ({ checkpointInterval: 60_000, checkpointRecords: 4_000_000 }) },
  { mode: 'Proxy', name: '', settings: () => ({}) },
  { mode: 'Floor', name: '', settings: () => ({}) },
  { mode: 'Floor', name: ', each value scanned', settings: () => ({}), scan: true },
];

const changelogRecords = async () => (await processorMetrics.changelog.get()).values[0]?.value ?? 0;

/** A processor in `mode` through the whole input of `topic`, from the start. */
async function processAll(log: MessageLog, mode: 'Aggregate' | 'Proxy', settings: object, topic: string, records: number, label: string): Promise<Run> {
  const names = { groupId: `bench-${label}`, output: `out-${label}`, state: `state-${label}` };
  const config = processorConfig.parse({
    mode,
    processor: { groupId: names.groupId, maxFlowsPerPartition: 4_000_000, ...settings },
    log: { topics: { flowsRaw: topic, flowsRawPartitions: 1, flowsProcessed: names.output, flowsProcessedPartitions: 1, processorState: names.state } },
  });
  const profiler = await startProfile();
  const processor = createProcessor(config, { log, logger: componentLogger('processor').child({}, { level: 'warn' }) });
  (globalThis as { gc?: () => void }).gc?.();
  const changelogBefore = await changelogRecords();
  let flows = 0;
  const cpu = await cpuOfRun(records, async () => {
    await processor.start();
    await waitCaughtUp(log, names.groupId, topic, 3_600_000);
    flows = processor.stats().flows;
    // The stop's commit takes a checkpoint of every flow changed since the last one: part of the work.
    await processor.stop();
  });
  await profiler?.stop(`${label}.cpuprofile`);
  // Outputs are counted once their commit resolves, which may be after the offsets it carried are seen.
  return { ...cpu, flows, outputs: processor.stats().outputs, changelog: (await changelogRecords()) - changelogBefore };
}

/** A CPU profile of what runs until stop(), when PROCESSOR_BENCH_PROFILE names a directory. */
async function startProfile(): Promise<{ stop(name: string): Promise<void> } | undefined> {
  const dir = process.env.PROCESSOR_BENCH_PROFILE;
  if (dir === undefined) return undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(name) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(join(dir, name), JSON.stringify(profile));
      session.disconnect();
    },
  };
}

function memory(): number {
  // Twice: memory outside the heap is given back when its owners are finalised, after a first collection.
  for (let i = 0; i < 2; i++) (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/**
 * How memory (heap and typed arrays, after a GC) changes while every flow's first records (both halves) are
 * generated, encoded and scanned, and fed to `ag` when given. Flows start up to 7 s apart, so the first
 * round ends before the third begins.
 */
function firstRecordsMemory(flows: number, ag?: Aggregator): number {
  const records = workload(flows).records();
  let next = records.next(); // builds the workload's own per-flow plans, before the first measure
  const encoder = new FlowRecordEncoder();
  const scanner = new FlowRecordScanner();
  const r = new ScannedRecord();
  const before = memory();
  for (let n = 0; !next.done && next.value.round < 2; n++, next = records.next()) {
    if (next.value.round === 1) continue;
    scanner.scan(encoder.flowRecord(next.value).value, r);
    if (ag === undefined) continue;
    ag.process(r);
    if (n % 20_000 === 0) {
      ag.takeOutputs();
      ag.takeCheckpoint(new ChangelogRecords(0), n);
    }
  }
  ag?.takeOutputs();
  ag?.takeCheckpoint(new ChangelogRecords(0), 0);
  return memory() - before;
}

/**
 * Bytes per active flow of one partition's aggregation state, once every flow of the workload is in it:
 * the change with the store fed, less the change without it, since the workload's generator frees more
 * of its own memory on the way than a flow takes (with the store fed, the heap fell by 278 bytes a flow
 * at 100,000 flows).
 */
function bytesPerFlow(flows: number): { bytes: number; flows: number } {
  const generatorOnly = firstRecordsMemory(flows);
  const ag = new Aggregator(aggregatorSettings({ maxFlows: 4_000_000 }), compileOutputEncoder(), { metadata: undefined, podLabels: false, includeK8sUIDs: false });
  const withStore = firstRecordsMemory(flows, ag);
  if (ag.flows === 0) throw new Error('no flows');
  return { bytes: (withStore - generatorOnly) / ag.flows, flows: ag.flows };
}

/** The bytes of the files under `dir`. */
function bytesUnder(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).reduce((sum, e) => sum + (e.isFile() ? statSync(join(e.parentPath, e.name)).size : 0), 0);
}

function caseName(mode: Case['mode'], suffix: string, flows: number): string {
  const n = flows.toLocaleString('en-US');
  if (mode === 'Aggregate') return `processor aggregate, ${n} active flows${suffix}`;
  if (mode === 'Proxy') return `processor proxy (input of ${n} flows)`;
  return `the log's floor: the input of ${n} flows copied through the processor's transactions, unchanged${suffix}`;
}

/** `use` on the embedded log in `dir`, closed after. */
async function withLog<T>(dir: string, use: (log: MessageLog) => Promise<T>): Promise<T> {
  const embedded = await openEmbeddedLog({ dir, fsync: { policy: 'always' }, maintenanceInterval: process.env.PROCESSOR_BENCH_MAINTENANCE ?? '60s' });
  try {
    return await use(embedded);
  } finally {
    await embedded.close();
  }
}

const bench: Benchmark = async (log) => {
  const results: BenchResult[] = [];
  // First, every size on a fresh heap: no buffers of the log's, nor a run's state, left to be collected
  // while it is measured.
  for (const flows of SIZES) {
    const m = bytesPerFlow(flows);
    log(`${m.flows} flows: ${Math.round(m.bytes)} bytes per flow`);
    results.push({ name: `processor memory per active flow, ${flows.toLocaleString('en-US')} flows`, value: m.bytes, unit: 'bytes', note: `heap + typed arrays after GC, ${m.flows.toLocaleString('en-US')} flows in one partition's store; target at most 1,024` });
  }
  if (MODES.includes('Core')) {
    for (const flows of SIZES) {
      const run = aggregateInMemory(encodeAll(workload(flows)));
      const name = `processor aggregate, ${flows.toLocaleString('en-US')} active flows, the aggregation alone (no log)`;
      log(`${name}: ${Math.round(run.perCpuSecond).toLocaleString('en-US')} records per CPU-s, ${run.flows} flows held, ${run.outputs} outputs, ${run.changelog} changelog records`);
      results.push({
        name,
        value: run.perCpuSecond,
        unit: 'records per CPU-second',
        note: `${run.records.toLocaleString('en-US')} records scanned from memory and aggregated, outputs and checkpoints taken as the processor takes them; ${Math.round(run.kernelShare * 100)} % of the CPU in the kernel; ${run.outputs.toLocaleString('en-US')} outputs, ${run.changelog.toLocaleString('en-US')} changelog records`,
      });
    }
  }
  if (!CASES.some((c) => MODES.includes(c.mode))) return results;
  for (const flows of SIZES) {
    const topic = `flows.raw-${flows}`;
    const source = mkdtempSync(join(tmpdir(), 'flowagg-bench-processor-'));
    try {
      const t0 = performance.now();
      const records = await withLog(source, (embedded) => writeInput(embedded, topic, flows));
      log(`${flows.toLocaleString('en-US')} flows: ${records.toLocaleString('en-US')} records written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      // Twice the input: a proxy writes it again, an aggregation its outputs and changelog.
      const warmUpBytes = 2 * bytesUnder(source);
      const pages = WARM_PAGES ? 'on pages freed just before' : reportsFreePages() ? 'on pages the host may have taken back' : 'on the pages the kernel gave';
      for (const [i, c] of CASES.entries()) {
        if (!MODES.includes(c.mode)) continue;
        // Each case on a copy of the input's log: the log's maintenance then compacts this case's state
        // only, not the state topics the cases before it left behind.
        const dir = mkdtempSync(join(tmpdir(), 'flowagg-bench-processor-'));
        cpSync(source, dir, { recursive: true });
        if (WARM_PAGES) warmPageCache(dir, warmUpBytes);
        const label = `${c.mode}-${flows}-${i}`;
        const run = await withLog(dir, (embedded) =>
          c.mode === 'Floor' ? copyThrough(embedded, topic, records, label, c.scan === true).then((cpu) => ({ ...cpu, flows: 0, outputs: records, changelog: 0 })) : processAll(embedded, c.mode, c.settings(flows), topic, records, label),
        ).finally(() => rmSync(dir, { recursive: true, force: true }));
        const name = caseName(c.mode, c.name, flows);
        const kernel = `${Math.round(run.kernelShare * 100)} % of the CPU in the kernel, ${pages}`;
        log(`${name}: ${Math.round(run.perCpuSecond).toLocaleString('en-US')} records per CPU-s (${kernel}), ${Math.round(run.perWallSecond).toLocaleString('en-US')} per wall-s, ${run.flows} flows held, ${run.outputs} outputs, ${run.changelog} changelog records`);
        results.push({
          name,
          value: run.perCpuSecond,
          unit: 'records per CPU-second',
          target: TARGETS[c.mode.toLowerCase()]?.[flows],
          note: `${records.toLocaleString('en-US')} records, 6 Nodes, ${RECORDS_PER_HALF} per half; wall ${Math.round(run.perWallSecond).toLocaleString('en-US')}/s; ${kernel}; ${run.outputs.toLocaleString('en-US')} outputs${c.mode === 'Aggregate' ? `, ${run.flows.toLocaleString('en-US')} flows held at the end, ${run.changelog.toLocaleString('en-US')} changelog records` : ''}; embedded log, fsync always`,
        });
      }
    } finally {
      rmSync(source, { recursive: true, force: true });
    }
  }
  return results;
};

export default bench;
