// The path view: for a 5-tuple, every exporter that reported it in the range (the source Node, the
// destination Node, any router or hypervisor exporting to flowagg), side by side with its counters.
import type { ObservationPoint, PathResponse } from '../../api-types.js';
import { get } from '../api.js';
import { figure, h } from '../dom.js';
import { bytes, count, time } from '../format.js';
import { href, type PageState, type Range, withParams } from '../url-state.js';

const TUPLE = [['src', 'Source address'], ['sport', 'Source port'], ['dst', 'Destination address'], ['dport', 'Destination port'], ['proto', 'Protocol number'], ['snat', 'SNAT address:port']] as const;

function card(p: ObservationPoint): HTMLElement {
  const title = p.node !== '' ? `Node ${p.node}` : p.side === 'other' ? `Exporter ${p.exporter}` : `${p.side} Node`;
  return h('article', { class: `point ${p.side}` },
    h('h3', {}, title),
    h('dl', {},
      h('dt', {}, 'Side'), h('dd', {}, p.side),
      h('dt', {}, 'Exporter'), h('dd', {}, `${p.exporter}, domain ${p.observationDomainId}`),
      h('dt', {}, 'Records'), h('dd', {}, figure(p.records, count(p.records))),
      h('dt', {}, 'Bytes'), h('dd', { class: 'bytes' }, figure(p.bytes, bytes(p.bytes))),
      h('dt', {}, 'Packets'), h('dd', {}, figure(p.packets, count(p.packets))),
      h('dt', {}, 'First seen'), h('dd', {}, time(p.first)),
      h('dt', {}, 'Last seen'), h('dd', {}, time(p.last))));
}

export async function path(state: PageState, range: Range): Promise<Node> {
  const p = state.params;
  const form = h('form', {
    class: 'filters',
    onsubmit: (e) => {
      e.preventDefault();
      location.hash = href('path', withParams(p, Object.fromEntries(new FormData(e.target as HTMLFormElement).entries()) as Record<string, string>));
    },
  }, ...TUPLE.map(([name, label]) => h('label', {}, label, h('input', { name, value: p.get(name) ?? '' }))), h('button', { type: 'submit' }, 'Show'));
  if (!p.has('src')) return h('div', {}, form, h('p', { class: 'hint' }, 'Give a flow\'s 5-tuple, or open a flow from the search and follow its path link.'));
  const data = await get<PathResponse>('path', { from: range.from, to: range.to, ...Object.fromEntries(TUPLE.map(([name]) => [name, p.get(name) ?? undefined])) });
  return h('div', {},
    form,
    h('h2', {}, data.tuple),
    !data.scan.complete && h('p', { class: 'hint' }, `Only records since ${time(data.scan.coveredFrom)} were read.`),
    data.points.length === 0 ? h('p', {}, 'No exporter reported this flow in the range.') : h('div', { class: 'points' }, ...data.points.map(card)),
  );
}
