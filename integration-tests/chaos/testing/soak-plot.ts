// The soak's samples as a PNG (harness/gnuplot.ts): each service's resident and heap memory, the lags, the
// end-to-end latency and the broker's disk use, over the run.
import { plotPanels } from '../../harness/gnuplot.js';
import type { SoakSample } from './soak-samples.js';

const MIB = 1024 * 1024;

export async function plotSoak(samples: readonly SoakSample[], png: string, title: string): Promise<void> {
  const services = [...new Set(samples.flatMap((s) => Object.keys(s.services)))].sort();
  const mib = (v: number | undefined) => (v === undefined ? NaN : v / MIB);
  const rows = samples.map((s) => [
    s.t,
    ...services.map((n) => mib(s.services[n]?.rss)),
    ...services.map((n) => mib(s.services[n]?.heap)),
    s.rawLag, s.processedLag, s.latencyP99,
    mib(s.disk.raw), mib(s.disk.processed), mib(s.disk.state),
  ]);
  const n = services.length;
  const lines = (from: number, names: readonly string[]) => names.map((name, i) => ({ column: from + i, title: name }));
  await plotPanels(png, {
    title, xlabel: 'seconds since the Agents started', rows,
    panels: [
      { ylabel: 'RSS (MiB)', lines: lines(1, services) },
      { ylabel: 'heap used (MiB)', lines: lines(1 + n, services) },
      { ylabel: 'lag (records)', lines: lines(1 + 2 * n, ['processors on flows.raw', 'flow log on flows.processed']) },
      { ylabel: 'p99 latency (s)', lines: lines(3 + 2 * n, ['Agent export to flow log']) },
      { ylabel: 'broker disk (MiB)', lines: lines(4 + 2 * n, ['flows.raw', 'flows.processed', 'processor.state']) },
    ],
  });
}
