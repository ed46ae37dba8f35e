// IPFIX codec throughput on one core (issue 2): decode and encode records/s for the Antrea agent
// template (43 elements, reference §4.3) and the template softflowd -v 10 sends. Messages are built
// by the encoder once; decoding goes through decodeMessage with a session template store, exactly as
// the collector does, and materialises every value.
import { cpus, loadavg } from 'node:os';
import { decodeMessage } from '../lib/ipfix/decode-message.js';
import { MessageEncoder } from '../lib/ipfix/message-encoder.js';
import { TemplateStore } from '../lib/ipfix/template-store.js';
import { antreaAgentTemplate, antreaAgentValues, softflowdTemplate, softflowdValues } from '../lib/ipfix/testing/templates.js';
import type { FieldValue, Template } from '../lib/ipfix/types.js';
import { type BenchResult, type Benchmark, measure } from './types.js';

const TARGET = 1_000_000;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const RECORDS = 10_000;

interface Case {
  readonly name: string;
  readonly template: Template;
  readonly values: (i: number) => FieldValue[];
  readonly maxMessageSize: number;
}

const cases: Case[] = [
  { name: 'Antrea agent template (43 IEs)', template: antreaAgentTemplate(), values: antreaAgentValues, maxMessageSize: 65535 },
  { name: 'softflowd -v 10 template (16 IEs)', template: softflowdTemplate(), values: softflowdValues, maxMessageSize: 1400 },
];

function encodeAll(c: Case, rows: readonly FieldValue[][]): Uint8Array[] {
  const enc = new MessageEncoder({ observationDomainId: c.template.observationDomainId, maxMessageSize: c.maxMessageSize, exportTime: () => 1_700_000_000 });
  enc.addTemplate(c.template);
  for (const r of rows) enc.addRecord(c.template, r);
  return enc.flush();
}

/**
 * Three figures, because the machine is shared: records/s of wall time over the whole run (measure(),
 * the figure compared with the target), records per CPU-second of this process (other processes take
 * wall time but not this process's CPU time), and the best 10,000-record batch (the capacity of the
 * core when nothing preempts it, as benchmark tools that report the minimum time do).
 */
async function timed(fn: () => void): Promise<{ wall: number; cpu: number; best: number }> {
  let cpuSeconds = 0;
  let calls = 0;
  let bestMs = Infinity;
  const wall = await measure(() => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fn();
    bestMs = Math.min(bestMs, performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpuSeconds += (c.user + c.system) / 1e6;
    calls++;
  }, RECORDS);
  return { wall, cpu: (calls * RECORDS) / cpuSeconds, best: (RECORDS * 1000) / bestMs };
}

const bench: Benchmark = async (log) => {
  const results: BenchResult[] = [];
  for (const c of cases) {
    const rows = Array.from({ length: RECORDS }, (_, i) => c.values(i));
    const messages = encodeAll(c, rows);
    const bytes = messages.reduce((n, m) => n + m.length, 0);
    log(`${c.name}: ${RECORDS} records in ${messages.length} messages of ≤ ${c.maxMessageSize} bytes, ${(bytes / RECORDS).toFixed(1)} bytes/record`);

    let sink = 0;
    // One session, as in the collector: the template is re-sent with every batch but stays the same
    // object (an identical refresh), so it is compiled once, not once per batch.
    const store = new TemplateStore({ transport: 'tcp' });
    const decode = await timed(() => {
      for (const m of messages) sink += decodeMessage(m, store).records.length;
    });
    if (sink === 0) throw new Error('nothing decoded');
    const encode = await timed(() => {
      sink += encodeAll(c, rows).length;
    });
    const context = `load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} CPUs`;
    const figures = (x: { cpu: number; best: number }) => `${fmt(x.cpu)} records per CPU-second, best batch ${fmt(x.best)} records/s`;
    results.push(
      { name: `ipfix decode, ${c.name}`, value: decode.wall, unit: 'records/s', target: TARGET, note: `decodeMessage, every value materialised; ${messages.length} messages of ≤ ${c.maxMessageSize} B; ${figures(decode)}; ${context}` },
      { name: `ipfix encode, ${c.name}`, value: encode.wall, unit: 'records/s', target: TARGET, note: `MessageEncoder, template + records, split at ${c.maxMessageSize} B; ${figures(encode)}; ${context}` },
    );
  }
  return results;
};

export default bench;
