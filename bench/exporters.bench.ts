// Exporter throughput on one core (issue 8). One case per exporter; this file has the IPFIX ones:
//   - reading FlowRecords: the compiled scanner (what the runner and the IPFIX and flow log exporters
//     pay per record), the compiled decoder (ClickHouse and S3) and avsc's reader;
//   - IPFIX export: Avro values from flows.processed scanned, mapped to Antrea's 70-element template,
//     encoded many records per message and written to a TCP collector (target 300,000 records/s; Antrea
//     sends one record per set);
//   - the same through the whole runner: embedded log → consumer group → batches with recorded ranges
//     → IPFIX over TCP → commit.
// The collector is a separate process that only counts bytes, so this process's CPU is the exporter's.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { topicsSchema } from '../lib/log/topics.js';
import { until } from '../lib/testing/until.js';
import { flowRecordReader, flowRecordWriter } from '../schemas/flow-record.js';
import { FlowRecordDecoder } from '../schemas/flow-record-decoder.js';
import { FlowRecordScanner, ScannedRecord } from '../schemas/flow-record-scanner.js';
import { ipfixExporter } from '../exporters/ipfix/testing/exporter.js';
import { createExportRunner } from '../exporters/runner.js';
import { numberedRecord, testBatch, writeRecords } from '../exporters/testing/records.js';
import { type BenchResult, type Benchmark, measure } from './types.js';

const TARGET = 300_000;
const BATCH = 5000;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const context = () => `load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} CPUs`;

/** A TCP sink in its own process: reads and counts, prints its port, then the byte count on each stdin line. */
async function startSink(): Promise<{ port: number; bytes: () => Promise<number>; stop: () => void }> {
  const source = `const s=require('net').createServer(c=>{c.on('data',d=>n+=d.length)});let n=0;s.listen(0,'127.0.0.1',()=>console.log(s.address().port));process.stdin.on('data',()=>console.log(n));`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
  const port = Number(await next());
  return {
    port,
    bytes: async () => {
      child.stdin!.write('\n');
      return Number(await next());
    },
    stop: () => child.kill(),
  };
}

function cpuRate(records: number, c0: NodeJS.CpuUsage): number {
  const c = process.cpuUsage(c0);
  return records / ((c.user + c.system) / 1e6);
}

const bench: Benchmark = async (log) => {
  const results: BenchResult[] = [];
  const writer = flowRecordWriter();
  const values = Array.from({ length: BATCH }, (_, i) => writer.encode(numberedRecord(i, { sourcePodLabels: '{"app":"client"}', throughput: 123_456 + i })));
  log(`FlowRecord values of ${values[0]!.length} bytes (an aggregated inter-Node flow)`);

  const compiled = new FlowRecordDecoder();
  const avsc = flowRecordReader();
  let sink = 0;
  const scanner = new FlowRecordScanner();
  const scanned = new ScannedRecord();
  const scanRate = await measure(() => {
    for (const v of values) {
      scanner.scan(v, scanned);
      sink += scanned.length[0]!;
    }
  }, BATCH);
  results.push({ name: 'FlowRecord scan, compiled scanner', value: scanRate, unit: 'records/s', note: `${values[0]!.length}-byte values, every field located, no object; ${context()}` });
  for (const [name, decode] of [['compiled decoder', (b: Buffer) => compiled.decode(b)], ['avsc reader', (b: Buffer) => avsc.decode(b)]] as const) {
    const rate = await measure(() => {
      for (const v of values) sink += decode(v).sourceTransportPort as number;
    }, BATCH);
    results.push({ name: `FlowRecord decode, ${name}`, value: rate, unit: 'records/s', note: `${values[0]!.length}-byte values; ${context()}` });
  }

  const collector = await startSink();
  try {
    for (const mode of ['Aggregate', 'Proxy'] as const) {
      const exporter = ipfixExporter({ address: `127.0.0.1:${collector.port}:tcp` }, { mode });
      await exporter.start();
      const signal = new AbortController().signal;
      let offset = 0;
      const before = await collector.bytes();
      const c0 = process.cpuUsage();
      let records = 0;
      const rate = await measure(async () => {
        const batch = testBatch(values.map((value, i) => ({ offset: offset + i, value })));
        offset += BATCH;
        records += BATCH;
        await exporter.deliver(batch, signal);
      }, BATCH, 4000);
      const perCpu = cpuRate(records, c0);
      await exporter.stop();
      const bytes = (await collector.bytes()) - before;
      results.push({
        name: `ipfix export over TCP, ${mode} (${exporter.templates.ipv4.template.fields.length} IEs)`,
        value: rate,
        unit: 'records/s',
        target: TARGET,
        note: `scan + template values + MessageEncoder (≤ 65535-byte messages) + socket write, batches of ${BATCH}; ${fmt(perCpu)} records per CPU-second; ${(bytes / records).toFixed(0)} IPFIX bytes/record reached the collector; ${context()}`,
      });
    }

    const dir = await mkdtemp(join(tmpdir(), 'flowagg-bench-export-'));
    const embedded = await openEmbeddedLog({ dir });
    try {
      const topics = topicsSchema.parse({ flowsProcessedPartitions: 4 });
      const total = 1_000_000;
      await embedded.admin().createTopics([{ topic: topics.flowsProcessed, partitions: 4 }]);
      await writeRecords(embedded, topics.flowsProcessed, Array.from({ length: total }, (_, i) => numberedRecord(i)), (i) => i % 4);
      const exporter = ipfixExporter({ address: `127.0.0.1:${collector.port}:tcp`, batchRecords: BATCH, batchDelay: 100 });
      const runner = createExportRunner({ topics }, { log: embedded, exporter });
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await runner.start();
      await until(`the runner to deliver ${total} records`, () => runner.stats().delivered >= total, { timeoutMs: 300_000, intervalMs: 5 });
      const seconds = (performance.now() - t0) / 1000;
      const perCpu = cpuRate(total, c0);
      await runner.stop();
      results.push({
        name: 'ipfix export through the runner (embedded log, 4 partitions, TCP)',
        value: total / seconds,
        unit: 'records/s',
        target: TARGET,
        note: `${fmt(total)} records read, batch ranges recorded (fsync always), delivered, committed; ${fmt(perCpu)} records per CPU-second; ${context()}`,
      });
    } finally {
      await embedded.close();
      await rm(dir, { recursive: true, force: true });
    }
  } finally {
    collector.stop();
  }
  if (sink === 0) throw new Error('nothing decoded');
  return results;
};

export default bench;
