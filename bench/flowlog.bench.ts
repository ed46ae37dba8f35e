// The flow log exporter's throughput (issues 8 and 18; `npm run bench -- flowlog`): CSV (prettyPrint)
// and JSON lines, batches of 20,000 framed values as the runner hands them over, each batch written and
// fsync'ed with its state record; target 300,000 lines/s. Then the JSON lines written into memory only,
// with no file: what the file's write and fsync cost is the difference.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { flowLoggerSection } from '../exporters/flowlog/config.js';
import { createFlowLogExporter } from '../exporters/flowlog/index.js';
import { deliverRate } from './deliver-rate.js';
import { scanEach } from '../exporters/flow-values.js';
import type { ExportBatch } from '../exporters/types.js';
import { LineBuffer } from '../exporters/row/line-buffer.js';
import { writeFlowRecordJson } from '../schemas/flow-record-json-writer.js';
import { ScannedRecord } from '../schemas/flow-record-scanner.js';
import type { BenchResult, Benchmark } from './types.js';

const context = () => `load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} CPUs`;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const bench: Benchmark = async () => {
  const results: BenchResult[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-bench-flowlog-'));
  try {
    for (const recordFormat of ['CSV', 'JSON'] as const) {
      const exporter = createFlowLogExporter(flowLoggerSection.parse({ path: join(dir, `flows-${recordFormat}.log`), recordFormat, maxSize: 100, compress: false }));
      await exporter.start();
      const { rate, perCpu, kernelShare } = await deliverRate(exporter, 20_000);
      await exporter.stop();
      results.push({
        name: `flowlog ${recordFormat}${recordFormat === 'CSV' ? ' (30 columns, prettyPrint)' : ' lines'}`,
        value: rate,
        unit: 'lines/s',
        target: 300_000,
        note: `batches of 20,000 framed values, each line written from the scanned record, each batch written and fsync'ed with its state record, rotation at 100 MB; ${fmt(perCpu)} lines per CPU-second, ${Math.round(kernelShare * 100)} % of it in the kernel; ${context()}`,
      });
    }
    const scanned = new ScannedRecord();
    const lines = new LineBuffer();
    const inMemory = {
      async deliver(batch: ExportBatch) {
        scanEach(batch, scanned, ({ offset }) => lines.end(offset, writeFlowRecordJson(scanned, lines)));
        lines.clear();
      },
    };
    const { rate, perCpu } = await deliverRate(inMemory, 20_000);
    results.push({
      name: 'flowlog JSON lines, written into memory only (no file)',
      value: rate,
      unit: 'lines/s',
      note: `the same batches scanned and written as JSON lines into one reused buffer; ${fmt(perCpu)} lines per CPU-second; ${context()}`,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return results;
};

export default bench;
