// The end-to-end benchmark's picture (harness/gnuplot.ts): one transport's phases one after the other,
// per second the records through each stage and received by the collector, the latency's p50 and p99 over
// 5-s windows of receipts, the lag in front of each stage, and the process tree's resident memory.
import { plotPanels } from '../../integration-tests/harness/gnuplot.js';
import type { PhaseRun } from './phase.js';
import { quantile } from '../../lib/testing/quantile.js';

const WINDOW_S = 5;
/** Rates over this many samples (seconds): the exporter delivers in batches up to a second apart, which one second's rate turns into a comb. */
const SMOOTH = 5;

/** p50 and p99 of the latencies received in each WINDOW_S window since the phase began. */
function windows(p: PhaseRun): Map<number, [number, number]> {
  const by = new Map<number, number[]>();
  const { latencies, seconds } = p.receipts;
  for (let i = 0; i < latencies.length; i++) {
    const w = Math.floor(seconds[i]! / WINDOW_S);
    let list = by.get(w);
    if (list === undefined) by.set(w, (list = []));
    list.push(latencies[i]!);
  }
  return new Map([...by].map(([w, l]) => [w, [quantile(l, 0.5), quantile(l, 0.99)]]));
}

/** Records the collector received per second over the SMOOTH seconds up to `second`. */
function received(p: PhaseRun, second: number): number {
  let n = 0;
  for (let t = Math.max(0, second - SMOOTH + 1); t <= second; t++) n += p.receipts.perSecond[t] ?? 0;
  return n / Math.min(SMOOTH, second + 1);
}

function rows(p: PhaseRun, offsetS: number): number[][] {
  const from = p.samples[0]!.at;
  const lat = windows(p);
  return p.samples.slice(1).map((s, i) => {
    const prev = p.samples[Math.max(0, i + 1 - SMOOTH)]!;
    const dt = (s.at - prev.at) / 1000;
    const rate = (a: number, b: number) => (a - b) / dt;
    const second = Math.floor((s.at - from) / 1000);
    const [p50, p99] = lat.get(Math.floor(second / WINDOW_S)) ?? [NaN, NaN];
    return [
      offsetS + (s.at - from) / 1000,
      rate(s.written, prev.written), rate(s.processed, prev.processed), rate(s.exported, prev.exported), received(p, second),
      p50, p99, s.ingestLag, Math.max(0, s.processorLag), s.exportLag, s.rssBytes / 2 ** 20,
    ];
  });
}

export async function plotPhases(png: string, title: string, phases: readonly PhaseRun[]): Promise<void> {
  let offset = 0;
  const all: number[][] = [];
  for (const p of phases) {
    const r = rows(p, offset);
    all.push(...r, []);
    offset = (r.at(-1)?.[0] ?? offset) + 1;
  }
  const line = (column: number, t: string) => ({ column, title: t });
  await plotPanels(png, {
    title, xlabel: 'seconds (each phase on a fresh flowagg run, one after the other)', rows: all,
    panels: [
      { ylabel: `records/s, over ${SMOOTH} s`, lines: [line(1, 'ingest wrote to flows.raw'), line(2, 'processor read'), line(3, 'exporter delivered'), line(4, 'collector received')] },
      { ylabel: `latency (s), ${WINDOW_S}-s windows`, lines: [line(5, 'p50 Agent send to collector'), line(6, 'p99')] },
      { ylabel: 'lag (records)', lines: [line(7, 'ingest queue'), line(8, 'processor (flows.raw unread)'), line(9, 'exporter (flows.processed)')] },
      { ylabel: 'RSS (MiB)', lines: [line(10, 'flowagg run')] },
    ],
  });
}
