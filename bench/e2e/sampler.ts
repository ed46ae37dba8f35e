// What the end-to-end benchmark reads of `flowagg run` every second: its own /metrics (records through each
// stage, the lag in front of each, the flows held) and, from /proc, its process tree's CPU and memory.
import { apiRequest } from '../../lib/apiserver/client.js';
import { metricValue } from '../../ingest/attacks/testing/harness.js';
import { apiOf, type Run } from '../../integration-tests/harness/flowagg-run.js';
import { processTree } from './process-tree.js';

export interface Sample {
  /** ms since the epoch. */
  readonly at: number;
  /** Records ingest decoded, wrote to flows.raw; the processor read, wrote to flows.processed; the IPFIX exporter's collector accepted. */
  readonly received: number;
  readonly written: number;
  readonly processed: number;
  readonly output: number;
  readonly exported: number;
  /**
   * Lag in front of each stage: records ingest holds for the log, of flows.raw the processor has not read,
   * of flows.processed the collector has not accepted (counted in records: the exporter's offset lag
   * counts the log's transaction markers too, and never falls below one a partition).
   */
  readonly ingestLag: number;
  readonly processorLag: number;
  readonly exportLag: number;
  readonly flows: number;
  readonly cpuSeconds: number;
  readonly rssBytes: number;
}

export async function sample(run: Run): Promise<Sample> {
  const text = (await apiRequest(apiOf(run), '/metrics')).text;
  const m = (name: string, labels: Record<string, string> = {}) => metricValue(text, `flowagg_${name}`, labels);
  const tree = processTree(run.child.process.pid!);
  const written = m('ingest_written_records_total');
  const processed = m('processor_records_total');
  const output = m('processor_output_records_total');
  const exported = m('export_records_total', { exporter: 'ipfix' });
  return {
    at: Date.now(), received: m('ingest_records_total'), written, processed, output, exported,
    ingestLag: m('ingest_queue_records'), processorLag: written - processed, exportLag: output - exported, flows: m('processor_flows'), cpuSeconds: tree.cpuSeconds, rssBytes: tree.rssBytes,
  };
}

/** Samples every `intervalMs` until stopped; stop() resolves with every sample, one taken at the stop included. */
export function sampleEvery(run: Run, intervalMs = 1000): { samples: Sample[]; stop(): Promise<Sample[]> } {
  const samples: Sample[] = [];
  let busy: Promise<void> = Promise.resolve();
  const take = () => (busy = busy.then(async () => void samples.push(await sample(run))));
  void take();
  const timer = setInterval(() => void take(), intervalMs);
  return {
    samples,
    async stop() {
      clearInterval(timer);
      await take();
      return samples;
    },
  };
}
