// Flow search: the records of flows.processed in the range that pass the filters, sortable and paged;
// each row opens the flow. The filters are the URL's parameters, so a search can be shared.
import type { FlowRow, SearchResponse } from '../../api-types.js';
import { get } from '../api.js';
import { figure, h, table } from '../dom.js';
import { bytes, count, FLOW_TYPES, protocol, time, tuple } from '../format.js';
import { href, type PageState, type Range, rangeParams, withParams } from '../url-state.js';

const FILTERS: readonly (readonly [name: string, label: string, hint: string])[] = [
  ['src', 'Source', 'namespace, ns/workload or ns/workload/pod'],
  ['dst', 'Destination', 'namespace, ns/workload or ns/workload/pod'],
  ['namespace', 'Namespace', 'either end'],
  ['pod', 'Pod', 'name or ns/name, either end'],
  ['label', 'Pod labels', 'app=web,tier!=db'],
  ['ip', 'IP or CIDR', '10.0.0.0/8'],
  ['port', 'Port', 'either end'],
  ['protocol', 'Protocol', 'tcp, udp, icmp or a number'],
  ['policy', 'Policy', 'name or ns/name'],
  ['node', 'Node', 'either end'],
  ['flowType', 'Flow type', 'intraNode, interNode, toExternal, fromExternal'],
  ['service', 'Service', 'ns/name'],
  ['denied', 'Denied', 'true or false'],
];

export const flowLink = (state: PageState, r: FlowRow, text: string) => h('a', { href: href('flow', { ...rangeParams(state.params), partition: r.partition, offset: r.offset }), title: tuple(r) }, text);

export function rowColumns(state: PageState) {
  return [
    { title: 'Flow end', cell: (r: FlowRow) => flowLink(state, r, time(r.time)) },
    { title: 'Source', cell: (r: FlowRow) => `${r.source}:${r.sourcePort}` },
    { title: 'Destination', cell: (r: FlowRow) => `${r.destination}:${r.destinationPort}` },
    { title: 'Protocol', cell: (r: FlowRow) => protocol(r.protocol) },
    { title: 'Type', cell: (r: FlowRow) => FLOW_TYPES[r.flowType] ?? String(r.flowType) },
    { title: 'Nodes', cell: (r: FlowRow) => [r.sourceNode, r.destinationNode].filter((n) => n !== '').join(' → ') },
    { title: 'Denied by', cell: (r: FlowRow) => r.denial },
    { title: 'Bytes', numeric: true, cell: (r: FlowRow) => figure(r.bytes, bytes(r.bytes)) },
    { title: 'Packets', numeric: true, cell: (r: FlowRow) => figure(r.packets, count(r.packets)) },
  ];
}

export async function flows(state: PageState, range: Range): Promise<Node> {
  const p = state.params;
  const page = Number(p.get('page') ?? '0');
  const sort = p.get('sort') ?? 'time';
  const order = p.get('order') ?? 'desc';
  const query = Object.fromEntries([...FILTERS.map(([name]) => [name, p.get(name) ?? undefined]), ['sort', sort], ['order', order], ['page', page], ['pageSize', 50]]);
  const data = await get<SearchResponse>('flows', { ...query, from: range.from, to: range.to });
  const form = h('form', {
    class: 'filters',
    onsubmit: (e) => {
      e.preventDefault();
      const values = Object.fromEntries(new FormData(e.target as HTMLFormElement).entries()) as Record<string, string>;
      location.hash = href('flows', withParams(p, { ...values, page: undefined }));
    },
  },
  ...FILTERS.map(([name, label, hint]) => h('label', {}, label, h('input', { name, value: p.get(name) ?? '', placeholder: hint }))),
  h('button', { type: 'submit' }, 'Search'));
  const sortLink = (key: string, title: string) => {
    const next = sort === key && order === 'desc' ? 'asc' : 'desc';
    return h('a', { href: href('flows', withParams(p, { sort: key, order: next, page: undefined })), 'aria-sort': sort === key ? (order === 'desc' ? 'descending' : 'ascending') : undefined }, `${title}${sort === key ? (order === 'desc' ? ' ↓' : ' ↑') : ''}`);
  };
  const pages = Math.ceil(data.matched / data.pageSize);
  return h('div', {},
    form,
    h('p', { class: 'controls' }, 'Sort by ', sortLink('time', 'time'), ' ', sortLink('bytes', 'bytes'), ' ', sortLink('packets', 'packets'),
      ` · ${count(data.matched)} records matched of ${count(data.scan.scanned)} read`,
      !data.scan.complete && ` (the range holds more than a query reads: only since ${time(data.scan.coveredFrom)})`),
    table('Flows, one row per export', rowColumns(state), data.rows, 'No flow matches in this time range.'),
    h('nav', { class: 'pager', 'aria-label': 'Pages' },
      page > 0 && h('a', { href: href('flows', withParams(p, { page: page - 1 })), rel: 'prev' }, '← Newer'),
      ` Page ${page + 1} of ${Math.max(1, pages)} `,
      page + 1 < pages && h('a', { href: href('flows', withParams(p, { page: page + 1 })), rel: 'next' }, 'Older →')),
  );
}
