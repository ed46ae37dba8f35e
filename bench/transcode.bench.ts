// FlowRecord transcoding (issue 4, "Records"): IPFIX data record → flow key + framed Avro FlowRecord, with the
// compiled transcoder (the ingest hot path) and with the reference builder (codec decode → object → avsc) for
// comparison, on the same workloads as bench/ipfix.bench.ts: the Antrea agent's 43-element template and the
// template softflowd -v 10 sends.
import { cpus, loadavg } from 'node:os';
import { antreaAgentTemplate, antreaAgentValues, softflowdTemplate, softflowdValues } from '../lib/ipfix/testing/templates.js';
import type { FieldValue, Template } from '../lib/ipfix/types.js';
import { flowRecordWriter } from '../schemas/flow-record.js';
import { RecordBuffer } from '../schemas/record-buffer.js';
import { contextFor, encodeRecord, type MessageFacts, referenceEncode } from '../ingest/records/testing/records.js';
import { compileTranscoder } from '../ingest/records/transcode.js';
import { type BenchResult, type Benchmark, measureCpu } from './types.js';

const RECORDS = 10_000;
const ORIGIN = { exporterAddress: '192.168.77.12', exporterPort: 39012, transport: 'tls' } as const;
const MSG: MessageFacts = { exportTime: 1_700_003_600, sequenceNumber: 1, receiveTime: 1_700_003_600_123, systemInitTime: 1_699_990_000_000 };

interface Case {
  readonly name: string;
  readonly template: Template;
  readonly values: (i: number) => FieldValue[];
}

const cases: Case[] = [
  { name: 'Antrea agent template (43 IEs)', template: antreaAgentTemplate(), values: antreaAgentValues },
  { name: 'softflowd -v 10 template (16 IEs)', template: softflowdTemplate(), values: softflowdValues },
];

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const bench: Benchmark = async (log) => {
  const results: BenchResult[] = [];
  const writer = flowRecordWriter();
  for (const c of cases) {
    const records = Array.from({ length: RECORDS }, (_, i) => encodeRecord(c.template, c.values(i)));
    const batch = Buffer.concat(records);
    const transcoder = compileTranscoder(c.template);
    const msg = contextFor(ORIGIN, c.template, MSG);
    const out = new RecordBuffer(16 << 20);
    const transcodeAll = () => {
      // The batch has been handed to the log: its views are no longer used, the buffer is written again.
      out.reset();
      for (let p = 0; p < batch.length; ) p = transcoder.transcode(batch, p, batch.length, msg, out);
    };
    transcodeAll();
    const inBytes = batch.length / RECORDS;
    const outBytes = out.valueEnd / RECORDS;
    log(`${c.name}: ${inBytes.toFixed(1)} IPFIX bytes/record → ${outBytes.toFixed(1)} bytes of key + single-object Avro`);
    const context = `load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} CPUs`;
    const fast = await measureCpu(transcodeAll, RECORDS);
    results.push({
      name: `FlowRecord transcoder, ${c.name}`, value: fast.wall, unit: 'records/s',
      note: `IPFIX record bytes → flow key + Avro, ${inBytes.toFixed(0)} B → ${outBytes.toFixed(0)} B; ${fmt(fast.cpu)} records per CPU-second; ${context}`,
    });
    const reference = await measureCpu(() => {
      for (const r of records) referenceEncode(c.template, r, msg, writer);
    }, RECORDS);
    results.push({
      name: `FlowRecord reference builder, ${c.name}`, value: reference.wall, unit: 'records/s',
      note: `codec decode → FlowRecord object → avsc + flow key; ${fmt(reference.cpu)} records per CPU-second; ${context}`,
    });
  }
  return results;
};

export default bench;
