// Delivering batches straight to an exporter, as the runner hands them over (framed FlowRecord values,
// read once, by the exporter): what the row and flow log benchmarks measure.
import type { Exporter } from '../exporters/types.js';
import { aggregatedRecord, exportedRecords, testBatch } from '../exporters/testing/records.js';
import { kernelShare, measure } from './types.js';

/** Delivers batches of `size` records (offsets advancing, so each is new) for ~minMs; records/s, records per CPU-second and the kernel's share of that CPU. */
export async function deliverRate(exporter: Pick<Exporter, 'deliver'>, size: number, minMs = 4000): Promise<{ rate: number; perCpu: number; kernelShare: number }> {
  const template = exportedRecords(Array.from({ length: size }, (_, i) => aggregatedRecord(i)), 0);
  const signal = new AbortController().signal;
  let offset = 0;
  let records = 0;
  const batch = () => {
    const b = testBatch(template.map(({ value }, i) => ({ offset: offset + i, value })));
    offset += size;
    return b;
  };
  await exporter.deliver(batch(), signal); // the first batch of a partition since start may be looked up first
  const c0 = process.cpuUsage();
  const rate = await measure(async () => {
    await exporter.deliver(batch(), signal);
    records += size;
  }, size, minMs, 1000);
  const c = process.cpuUsage(c0);
  return { rate, perCpu: records / ((c.user + c.system) / 1e6), kernelShare: kernelShare(c) };
}
