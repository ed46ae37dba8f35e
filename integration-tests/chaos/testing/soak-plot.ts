// The soak's samples as a PNG, drawn by gnuplot (Debian's gnuplot-nox): each service's resident and heap
// memory, the lags, the end-to-end latency and the broker's disk use, over the run.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { SoakSample } from './soak-samples.js';

const run = promisify(execFile);
const MIB = 1024 * 1024;

export async function plotSoak(samples: readonly SoakSample[], png: string, title: string): Promise<void> {
  const services = [...new Set(samples.flatMap((s) => Object.keys(s.services)))].sort();
  const mib = (v: number | undefined) => (v === undefined ? 'NaN' : (v / MIB).toFixed(2));
  const rows = samples.map((s) => [
    s.t.toFixed(1),
    ...services.map((n) => mib(s.services[n]?.rss)),
    ...services.map((n) => mib(s.services[n]?.heap)),
    s.rawLag, s.processedLag, Number.isNaN(s.latencyP99) ? 'NaN' : s.latencyP99.toFixed(2),
    mib(s.disk.raw), mib(s.disk.processed), mib(s.disk.state),
  ].join('\t'));
  const data = `${png}.tsv`;
  await writeFile(data, `${rows.join('\n')}\n`);
  const n = services.length;
  const lines = (from: number, names: readonly string[]) => names.map((name, i) => `'${data}' using 1:${from + i} with lines title '${name}'`).join(', ');
  const script = `set terminal pngcairo size 1200,1500 font ",10"
set output '${png}'
set datafile missing 'NaN'
set key outside right
set grid
set xlabel 'seconds since the Agents started'
set multiplot layout 5,1 title '${title.replaceAll("'", '')}'
set ylabel 'RSS (MiB)'
plot ${lines(2, services)}
set ylabel 'heap used (MiB)'
plot ${lines(2 + n, services)}
set ylabel 'lag (records)'
plot ${lines(2 + 2 * n, ['processors on flows.raw', 'flow log on flows.processed'])}
set ylabel 'p99 latency (s)'
plot ${lines(4 + 2 * n, ['Agent export to flow log'])}
set ylabel 'broker disk (MiB)'
plot ${lines(5 + 2 * n, ['flows.raw', 'flows.processed', 'processor.state'])}
unset multiplot
`;
  await writeFile(`${png}.gnuplot`, script);
  await run('gnuplot', [`${png}.gnuplot`]);
}
