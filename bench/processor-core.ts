// The aggregation alone, with no log: the workload's records encoded in memory a chunk at a time, then
// scanned and aggregated as a partition task does (outputs taken at every commit's worth of records, a
// checkpoint whenever as many changelog records wait as the processor's default allows, and one at the
// end). Only the scan and the aggregation are timed, not making the records. Set against the whole
// processor's figure, it says what the log costs and what the mode's own work does (docs/benchmarks.md,
// "Processor").
import type { ProduceRecord } from '../lib/log/types.js';
import { Aggregator } from '../processor/aggregate/aggregator.js';
import { compileOutputEncoder } from '../processor/aggregate/output.js';
import { processorConfig } from '../processor/config.js';
import { aggregatorSettings } from '../processor/testing/fakes.js';
import { FlowRecordScanner, ScannedRecord } from '../schemas/flow-record-scanner.js';
import { FlowRecordEncoder } from '../simulate/antrea/records.js';
import type { Workload } from '../simulate/antrea/workload.js';
import { kernelShare } from './types.js';

const CHUNK = 5_000;
const { commitRecords, checkpointRecords } = processorConfig.parse({ mode: 'Aggregate' }).processor;

export interface CoreRun {
  readonly records: number;
  readonly perCpuSecond: number;
  readonly kernelShare: number;
  readonly outputs: number;
  readonly changelog: number;
  readonly flows: number;
}

export function aggregateInMemory(workload: Workload): CoreRun {
  const encoder = new FlowRecordEncoder();
  const scanner = new FlowRecordScanner();
  const r = new ScannedRecord();
  const ag = new Aggregator(aggregatorSettings({ maxFlows: 4_000_000 }), compileOutputEncoder(), { metadata: undefined, podLabels: false, includeK8sUIDs: false });
  const changelog: ProduceRecord[] = [];
  const used = { user: 0, system: 0 };
  let records = 0;
  let outputs = 0;
  let changes = 0;
  const values: Buffer[] = [];
  const processChunk = (last: boolean) => {
    const before = process.cpuUsage();
    for (const value of values) {
      scanner.scan(value, r);
      ag.process(r);
      if (++records % commitRecords !== 0) continue;
      outputs += ag.takeOutputs().length;
      if (ag.changed < checkpointRecords) continue;
      ag.takeCheckpoint(changelog, 0, records);
      changes += changelog.length;
      changelog.length = 0;
    }
    if (last) {
      outputs += ag.takeOutputs().length;
      ag.takeCheckpoint(changelog, 0, records);
      changes += changelog.length;
    }
    const cpu = process.cpuUsage(before);
    used.user += cpu.user;
    used.system += cpu.system;
    values.length = 0;
  };
  for (const record of workload.records()) {
    values.push(Buffer.from(encoder.flowRecord(record).value));
    if (values.length === CHUNK) processChunk(false);
  }
  processChunk(true);
  return { records, perCpuSecond: (records * 1e6) / (used.user + used.system), kernelShare: kernelShare(used), outputs, changelog: changes, flows: ag.flows };
}
