// Time series as a PNG of stacked panels, drawn by gnuplot (Debian's gnuplot-nox): the soak test's and the
// end-to-end benchmark's pictures. The data goes to PNG.tsv and the script to PNG.gnuplot beside the
// picture, so that a reader can redraw it or look at the numbers.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Panel {
  readonly ylabel: string;
  /** Each line of the panel: its column in the rows (0 is x) and its key. */
  readonly lines: readonly { readonly column: number; readonly title: string }[];
}

export interface Plot {
  readonly title: string;
  readonly xlabel: string;
  /** One row per x: x first, then every column the panels name; NaN where a value is missing; an empty row breaks the lines. */
  readonly rows: readonly (readonly number[])[];
  readonly panels: readonly Panel[];
  /** Decimals written per column (default 2). */
  readonly decimals?: number;
}

/** gnuplot takes a quote in a title as the end of the string. */
const quoted = (s: string) => `'${s.replaceAll("'", '')}'`;

export async function plotPanels(png: string, plot: Plot): Promise<void> {
  // The script names its files relative to its folder, where gnuplot runs: the three files move together.
  const [dir, name] = [dirname(png), basename(png)];
  const data = `${name}.tsv`;
  const cell = (v: number) => (Number.isFinite(v) ? v.toFixed(plot.decimals ?? 2) : 'NaN');
  await writeFile(`${png}.tsv`, `${plot.rows.map((r) => r.map(cell).join('\t')).join('\n')}\n`);
  const panels = plot.panels.map((p) => [
    `set ylabel ${quoted(p.ylabel)}`,
    `plot ${p.lines.map((l) => `'${data}' using 1:${l.column + 1} with lines title ${quoted(l.title)}`).join(', ')}`,
  ].join('\n'));
  // One x range for every panel: gnuplot would fit each to its own lines, which end at different times.
  const xs = plot.rows.filter((r) => r.length > 0).map((r) => r[0]!);
  const xrange = xs.length > 1 ? `set xrange [${Math.min(...xs)}:${Math.max(...xs)}]\n` : '';
  const script = `set terminal pngcairo size 1200,${300 * plot.panels.length} font ",10"
set output '${name}'
set datafile missing 'NaN'
set key outside right
set grid
set xlabel ${quoted(plot.xlabel)}
${xrange}set multiplot layout ${plot.panels.length},1 title ${quoted(plot.title)}
${panels.join('\n')}
unset multiplot
`;
  await writeFile(`${png}.gnuplot`, script);
  await run('gnuplot', [`${name}.gnuplot`], { cwd: dir }).catch((err: NodeJS.ErrnoException) => {
    // CI does not install it (only the soak test, which CI skips, and the benchmarks draw).
    if (err.code === 'ENOENT') throw new Error(`drawing ${png} needs gnuplot (apt-get install gnuplot-nox); its data and script are beside it`);
    throw err;
  });
}
