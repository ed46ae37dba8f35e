// The aggregation alone, with no log: the workload's records encoded into memory first (the generator
// then let go, so that its own state of every flow is not in the heap the collector walks while the
// aggregation runs), then scanned and aggregated as a partition task does: outputs taken at every
// commit's worth of records, a checkpoint whenever as many changelog records wait as the processor's
// default allows and one at the end, each made into the log's records a slice at a time as a commit
// sends them. Set against the whole processor's figure, it says what the log costs and what the mode's
// own work does (docs/benchmarks.md, "Processor").
import { Aggregator } from '../processor/aggregate/aggregator.js';
import { ChangelogRecords } from '../processor/aggregate/changelog-records.js';
import { compileOutputEncoder } from '../processor/aggregate/output.js';
import { doubled } from '../lib/typed-arrays.js';
import { CHANGELOG_SLICE } from '../processor/task.js';
import { processorConfig } from '../processor/config.js';
import { aggregatorSettings } from '../processor/testing/fakes.js';
import { FlowRecordScanner, ScannedRecord } from '../schemas/flow-record-scanner.js';
import { FlowRecordEncoder } from '../simulate/antrea/records.js';
import type { Workload } from '../simulate/antrea/workload.js';
import { kernelShare } from './types.js';

const CHUNK_BYTES = 64 << 20;
const { commitRecords, checkpointRecords } = processorConfig.parse({ mode: 'Aggregate' }).processor;

export interface CoreRun {
  readonly records: number;
  readonly perCpuSecond: number;
  readonly kernelShare: number;
  readonly outputs: number;
  readonly changelog: number;
  readonly flows: number;
}

/** The workload's values back to back in large chunks: value i is chunks[chunk[i]] from ends[i - 1] (0 at a chunk's start) to ends[i]. */
export interface EncodedInput {
  readonly chunks: Buffer[];
  readonly chunk: Int32Array;
  readonly ends: Int32Array;
  readonly count: number;
}

/** The workload's values, encoded before anything is timed; the caller keeps nothing else of the workload. */
export function encodeAll(workload: Workload): EncodedInput {
  const encoder = new FlowRecordEncoder();
  const chunks = [Buffer.allocUnsafe(CHUNK_BYTES)];
  let chunk: Int32Array = new Int32Array(1 << 20);
  let ends: Int32Array = new Int32Array(1 << 20);
  let count = 0;
  let pos = 0;
  for (const record of workload.records()) {
    const value = encoder.flowRecord(record).value;
    if (pos + value.length > CHUNK_BYTES) {
      chunks.push(Buffer.allocUnsafe(CHUNK_BYTES));
      pos = 0;
    }
    if (count === ends.length) {
      chunk = doubled(chunk);
      ends = doubled(ends);
    }
    pos += value.copy(chunks[chunks.length - 1]!, pos);
    chunk[count] = chunks.length - 1;
    ends[count++] = pos;
  }
  return { chunks, chunk, ends, count };
}

export function aggregateInMemory(input: EncodedInput): CoreRun {
  const scanner = new FlowRecordScanner();
  const r = new ScannedRecord();
  const ag = new Aggregator(aggregatorSettings({ maxFlows: 4_000_000 }), compileOutputEncoder(), { metadata: undefined, podLabels: false, includeK8sUIDs: false });
  let outputs = 0;
  let changelog = 0;
  let sent = 0;
  const checkpoint = (inputOffset: number) => {
    const records = new ChangelogRecords(0);
    ag.takeCheckpoint(records, inputOffset);
    for (const slice of records.slices(CHANGELOG_SLICE)) sent += slice.length;
    changelog += records.length;
  };
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.cpuUsage();
  for (let i = 0; i < input.count; i++) {
    const c = input.chunk[i]!;
    const start = i > 0 && input.chunk[i - 1] === c ? input.ends[i - 1]! : 0;
    scanner.scanRange(input.chunks[c]!, start, input.ends[i]!, r);
    ag.process(r);
    if ((i + 1) % commitRecords !== 0) continue;
    outputs += ag.takeOutputs().length;
    if (ag.changed >= checkpointRecords) checkpoint(i + 1);
  }
  outputs += ag.takeOutputs().length;
  checkpoint(input.count);
  const used = process.cpuUsage(before);
  if (sent !== changelog) throw new Error(`${sent} changelog records made of ${changelog}`);
  return { records: input.count, perCpuSecond: (input.count * 1e6) / (used.user + used.system), kernelShare: kernelShare(used), outputs, changelog, flows: ag.flows };
}
