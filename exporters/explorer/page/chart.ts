// A stacked area chart of a time series view (uPlot): each key's band sits on the ones below it, drawn
// as cumulative sums, while the legend and the tooltip show each key's own rate.
import uPlot from 'uplot';
import type { TimeSeriesView } from '../api-types.js';
import { bytes, count } from './format.js';
import { h } from './dom.js';

const COLORS = ['#4269d0', '#efb118', '#ff725c', '#6cc5b0', '#3ca951', '#ff8ab7', '#a463f2', '#97bbf5', '#9c6b4e', '#9498a0'];

export type Metric = 'bytes' | 'packets';

/** A chart in a figure with its caption; it follows the width of its container. */
export function stackedChart(view: TimeSeriesView, metric: Metric, caption: string): HTMLElement {
  const figure = h('figure', { class: 'chart' }, h('figcaption', {}, caption));
  const perSecond = 1000 / view.bucketMs;
  const rates = view.series.map((s) => s[metric].map((v) => v * perSecond));
  // Cumulative from the top of the stack down: series i is the sum of keys i…n, filled to zero, so that
  // each drawn over the last leaves the band of its key visible.
  const stacked = rates.map((_, i) => view.times.map((_t, j) => rates.slice(i).reduce((n, r) => n + r[j]!, 0)));
  const unit = metric === 'bytes' ? (v: number) => `${bytes(v)}/s` : (v: number) => `${count(Math.round(v))} packets/s`;
  const opts: uPlot.Options = {
    width: 800,
    height: 260,
    scales: { x: { time: true } },
    axes: [{}, { values: (_u, ticks) => ticks.map(unit), size: 90 }],
    series: [
      {},
      ...view.series.map((s, i) => ({
        label: s.key,
        stroke: COLORS[i % COLORS.length],
        fill: `${COLORS[i % COLORS.length]}cc`,
        width: 1,
        value: (_u: uPlot, _v: number | null, _s: number, at: number | null) => (at === null ? '' : unit(rates[i]![at] ?? 0)),
      })),
    ],
    legend: { live: true },
  };
  const data: uPlot.AlignedData = [view.times.map((t) => t / 1000), ...stacked];
  const plot = new uPlot(opts, data, figure);
  let width = 0;
  // Only a change of width resizes: the chart's own height must not start another round.
  new ResizeObserver(() => {
    if (figure.clientWidth === width) return;
    width = figure.clientWidth;
    requestAnimationFrame(() => plot.setSize({ width: Math.max(280, width), height: width < 500 ? 200 : 260 }));
  }).observe(figure);
  return figure;
}
