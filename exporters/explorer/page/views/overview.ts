// Overview: traffic over time stacked by namespace or by Node, and the top talkers of the range.
import type { OverviewResponse, Ranked } from '../../api-types.js';
import { get } from '../api.js';
import { stackedChart, type Metric } from '../chart.js';
import { figure, h, section, table } from '../dom.js';
import { bytes, count, error } from '../format.js';
import { href, type PageState, type Range, rangeParams, withParams } from '../url-state.js';

const LIMITS = ['10', '25', '100', '500'];

/** A selector that rewrites one parameter of the URL (the state lives there). */
export function choice(label: string, state: PageState, name: string, options: readonly string[], fallback: string): HTMLElement {
  const current = state.params.get(name) ?? fallback;
  const select = h('select', { name, onchange: (e) => (location.hash = href(state.view, withParams(state.params, { [name]: (e.target as HTMLSelectElement).value }))) },
    ...options.map((o) => h('option', { value: o, selected: o === current }, o)));
  return h('label', {}, `${label} `, select);
}

/** A source → destination pair as links to its flows. */
function pairCell(state: PageState, r: Ranked): HTMLElement {
  const [src = '', dst = ''] = r.key;
  return h('a', { href: href('flows', { ...rangeParams(state.params), src, dst }) }, `${src} → ${dst}`);
}

const figures = [
  { title: 'Bytes', numeric: true, cell: (r: Ranked) => figure(r.bytes, bytes(r.bytes) + error(r.error)) },
  { title: 'Packets', numeric: true, cell: (r: Ranked) => figure(r.packets, count(r.packets)) },
];

export async function overview(state: PageState, range: Range): Promise<Node> {
  const by = state.params.get('by') ?? 'namespace';
  const metric = (state.params.get('metric') ?? 'bytes') as Metric;
  const limit = state.params.get('limit') ?? '10';
  const data = await get<OverviewResponse>('overview', { from: range.from, to: range.to, by, limit });
  const filtered = (key: string, value: string) => h('a', { href: href('flows', { ...rangeParams(state.params), [key]: value }) }, value);
  return h('div', {},
    h('div', { class: 'controls' }, choice('Stacked by', state, 'by', ['namespace', 'node'], 'namespace'), choice('Showing', state, 'metric', ['bytes', 'packets'], 'bytes'), choice('Rows', state, 'limit', LIMITS, '10')),
    stackedChart(data.traffic, metric, `Traffic per second by ${by}, ${data.range.bucketMs / 1000} s buckets`),
    h('div', { class: 'grid' },
      section('Top talkers: Pod → Pod', table('Pod pairs by bytes', [{ title: 'Source → destination', cell: (r: Ranked) => pairCell(state, r) }, ...figures], data.top.podPairs)),
      section('Top talkers: namespace → namespace', table('Namespace pairs by bytes', [{ title: 'Source → destination', cell: (r: Ranked) => pairCell(state, r) }, ...figures], data.top.namespacePairs)),
      section('Services', table('Destination Services by bytes', [{ title: 'Service', cell: (r: Ranked) => filtered('service', r.key[0]!) }, ...figures], data.top.services)),
      section('External destinations', table('Addresses outside the cluster by bytes', [{ title: 'Address', cell: (r: Ranked) => filtered('ip', r.key[0]!) }, ...figures], data.top.external)),
    ),
  );
}
