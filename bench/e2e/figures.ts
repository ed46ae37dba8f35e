// The end-to-end figures of one phase, as the issue asks for them: records/s taken at zero loss, CPU per
// record of flowagg's whole process tree, resident memory per active flow, the work left when the input
// ended, and the latency from the Agent's send to the collector's receipt.
import type { BenchResult } from '../types.js';
import { ACTIVE_S, type PhaseRun } from './phase.js';
import { quantile } from '../../lib/testing/quantile.js';

export interface PhaseFigures {
  readonly takenPerSecond: number;
  /** Records from the first written to flows.raw until every one was processed and its output exported. */
  readonly throughPerSecond: number;
  readonly lost: number;
  readonly cpuMicrosPerRecord: number;
  readonly rssPerFlowBytes: number;
  readonly peakRssBytes: number;
  readonly leftAtEnd: number;
  readonly drainSeconds: number;
  /** Agent's send to collector's receipt, seconds; the active timeout not subtracted. */
  readonly p50: number;
  readonly p99: number;
}

export function figures(p: PhaseRun): PhaseFigures {
  const last = p.samples.at(-1)!;
  const written = last.written - p.idle.written;
  const fullest = p.samples.reduce((a, s) => (s.flows > a.flows ? s : a));
  const ended = p.samples[p.sentAt - 1]!;
  const drained = p.samples[p.drainedAt - 1]!;
  const first = p.samples.find((x) => x.written > p.idle.written) ?? drained;
  return {
    takenPerSecond: p.report.records.sent / (p.report.durationMs / 1000),
    throughPerSecond: (drained.written - p.idle.written) / Math.max(1, (drained.at - first.at) / 1000),
    lost: p.report.records.lost + Math.max(0, p.report.records.sent - written),
    cpuMicrosPerRecord: ((last.cpuSeconds - p.idle.cpuSeconds) * 1e6) / Math.max(1, written),
    rssPerFlowBytes: (fullest.rssBytes - p.idle.rssBytes) / Math.max(1, fullest.flows),
    peakRssBytes: Math.max(...p.samples.map((s) => s.rssBytes)),
    leftAtEnd: ended.ingestLag + Math.max(0, ended.processorLag) + ended.exportLag,
    drainSeconds: (drained.at - ended.at) / 1000,
    p50: quantile(p.receipts.latencies, 0.5),
    p99: quantile(p.receipts.latencies, 0.99),
  };
}

const s = (v: number) => `${v.toFixed(1)} s`;

/** The phase's rows of the results table, names prefixed with `name` ("e2e tcp, as fast as taken"). */
export function results(name: string, p: PhaseRun, f: PhaseFigures, load: string): BenchResult[] {
  const r = p.report.records;
  const skipped = r.skipped.late + r.skipped.unavailable;
  const offered = `${Math.round(p.report.rate.natural)} records/s offered by the flows' pace`;
  const shape = `${p.report.nodes.length} Agents over ${p.report.transport}, ${p.report.flows.concurrent} flows exported every ${p.report.flows.exportIntervalS} s (${offered}); ${r.sent} records sent in ${s(p.report.durationMs / 1000)}, ${skipped} skipped (the Agents' links backed up or behind), simulator ${p.report.cpuSeconds.toFixed(0)} CPU-s; ${load}`;
  return [
    { name: `${name}: records taken`, value: f.takenPerSecond, unit: 'records/s', note: shape },
    { name: `${name}: records through to the collector`, value: f.throughPerSecond, unit: 'records/s', note: 'from the first record written to flows.raw until all were processed and exported' },
    { name: `${name}: records lost`, value: f.lost, unit: 'records', note: `${r.sent} sent, ${p.samples.at(-1)!.written - p.idle.written} written to flows.raw, ${r.lost} lost by the Agents' links` },
    { name: `${name}: CPU per record, flowagg's process tree`, value: f.cpuMicrosPerRecord, unit: 'µs', note: `from the Agents' start until the last flows expired and were exported; ${load}` },
    { name: `${name}: RSS per active flow`, value: f.rssPerFlowBytes, unit: 'bytes', note: `RSS at the most flows held minus idle (${(p.idle.rssBytes / 2 ** 20).toFixed(0)} MiB), over those flows; peak RSS ${(f.peakRssBytes / 2 ** 20).toFixed(0)} MiB` },
    { name: `${name}: work left when the input ended`, value: f.leftAtEnd, unit: 'records', note: `in front of ingest, the processor and the exporter; all exported ${s(f.drainSeconds)} later` },
    { name: `${name}: latency p50, Agent send to collector receipt`, value: f.p50, unit: 's', note: `${p.receipts.records} records received; the Agents' own lateness, when they fell behind, included; minus the ${ACTIVE_S} s active timeout: ${s(f.p50 - ACTIVE_S)}` },
    { name: `${name}: latency p99, Agent send to collector receipt`, value: f.p99, unit: 's', note: `minus the ${ACTIVE_S} s active timeout: ${s(f.p99 - ACTIVE_S)}` },
  ];
}
