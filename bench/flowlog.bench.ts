// The flow log exporter's throughput (issues 8 and 18; `npm run bench -- flowlog`): CSV (prettyPrint)
// and JSON lines, batches of 20,000 framed values as the runner hands them over, each batch written and
// fsync'ed with its state record; target 300,000 lines/s. Then the JSON lines written into memory only,
// with no file: what the file's write and fsync cost is the difference. Each format starts on pages freed
// a moment before, as the processor's cases do (bench/page-cache.ts); FLOWLOG_BENCH_PAGES=cold runs it on
// what the machine gives.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { flowLoggerSection } from '../exporters/flowlog/config.js';
import { createFlowLogExporter } from '../exporters/flowlog/index.js';
import { deliverRate } from './deliver-rate.js';
import { jsonLinesFileOnly } from './flowlog-file-floor.js';
import { reportsFreePages, warmPageCache } from './page-cache.js';
import { scanEach } from '../exporters/flow-values.js';
import type { ExportBatch } from '../exporters/types.js';
import { LineBuffer } from '../exporters/row/line-buffer.js';
import { writeFlowRecordJson } from '../schemas/flow-record-json-writer.js';
import { ScannedRecord } from '../schemas/flow-record-scanner.js';
import type { BenchResult, Benchmark } from './types.js';

const WARM_PAGES = process.env.FLOWLOG_BENCH_PAGES !== 'cold';
/** About what a format writes in the run's 5 s at 300,000 lines/s. */
const WARM_UP_BYTES = 2 ** 31;
const pages = WARM_PAGES ? 'on pages freed just before' : reportsFreePages() ? 'on pages the host may have taken back' : 'on the pages the kernel gave';
const context = () => `load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} CPUs`;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const bench: Benchmark = async () => {
  const results: BenchResult[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-bench-flowlog-'));
  try {
    for (const recordFormat of ['CSV', 'JSON'] as const) {
      if (WARM_PAGES) warmPageCache(dir, WARM_UP_BYTES);
      const exporter = createFlowLogExporter(flowLoggerSection.parse({ path: join(dir, `flows-${recordFormat}.log`), recordFormat, maxSize: 100, compress: false }));
      await exporter.start();
      const { rate, perCpu, kernelShare } = await deliverRate(exporter, 20_000);
      await exporter.stop();
      results.push({
        name: `flowlog ${recordFormat}${recordFormat === 'CSV' ? ' (30 columns, prettyPrint)' : ' lines'}`,
        value: rate,
        unit: 'lines/s',
        target: 300_000,
        note: `batches of 20,000 framed values, each line written from the scanned record, each batch written and fsync'ed with its state record, rotation at 100 MB; ${fmt(perCpu)} lines per CPU-second, ${Math.round(kernelShare * 100)} % of it in the kernel, ${pages}; ${context()}`,
      });
    }
    if (WARM_PAGES) warmPageCache(dir, WARM_UP_BYTES);
    const fileOnly = await jsonLinesFileOnly(dir);
    const floor = await deliverRate(fileOnly, 20_000).finally(() => fileOnly.close());
    results.push({
      name: 'flowlog JSON lines, the file alone (lines made once, then copied and appended)',
      value: floor.rate,
      unit: 'lines/s',
      note: `the same lines' bytes appended as the exporter appends them, no scan and no formatting; ${fmt(floor.perCpu)} lines per CPU-second, ${Math.round(floor.kernelShare * 100)} % of it in the kernel, ${pages}; ${context()}`,
    });
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
