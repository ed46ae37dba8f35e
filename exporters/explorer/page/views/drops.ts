// Policy drops: denied traffic over time by policy, each rule with the flows it denied, and the
// namespaces whose Pods were denied.
import type { DropsResponse, FlowRow, Ranked, SearchResponse } from '../../api-types.js';
import { get } from '../api.js';
import { stackedChart } from '../chart.js';
import { figure, h, section, table } from '../dom.js';
import { bytes, count, error, protocol, time, tuple } from '../format.js';
import { href, type PageState, type Range, rangeParams } from '../url-state.js';

/** The flows of a rule, once each: a flow exported several times is one row with its exports added up. */
function flowsOf(rows: readonly FlowRow[]): FlowRow[] {
  const byTuple = new Map<string, FlowRow>();
  for (const r of rows) {
    const key = tuple(r);
    const seen = byTuple.get(key);
    byTuple.set(key, seen === undefined ? r : { ...seen, bytes: seen.bytes + r.bytes, packets: seen.packets + r.packets, time: Math.max(seen.time, r.time) });
  }
  return [...byTuple.values()];
}

export async function drops(state: PageState, range: Range): Promise<Node> {
  const [data, denied] = await Promise.all([
    get<DropsResponse>('drops', { from: range.from, to: range.to }),
    get<SearchResponse>('flows', { from: range.from, to: range.to, denied: 'true', pageSize: 500, sort: 'time' }),
  ]);
  const ruleKey = (r: Ranked) => r.key.join(' ');
  const flowLink = (r: FlowRow) => h('a', { href: href('flow', { ...rangeParams(state.params), partition: r.partition, offset: r.offset }), title: tuple(r) }, `${r.source} → ${r.destination}`);
  const rules = data.rules.map((rule) => {
    const [direction, policy, name, action] = rule.key;
    const flows = flowsOf(denied.rows.filter((row) => row.denial === ruleKey(rule)));
    return h('article', { class: 'rule', 'data-policy': policy },
      h('h3', {}, `${policy} `, h('span', { class: 'tag' }, direction!), ' rule ', h('code', {}, name || '(unnamed)'), ' ', h('span', { class: `tag ${action!.toLowerCase()}` }, action!)),
      h('p', {}, `${bytes(rule.bytes)}${error(rule.error)} in ${count(rule.packets)} packets, ${count(rule.records)} exports. `,
        h('a', { href: href('flows', { ...rangeParams(state.params), policy, denied: 'true' }) }, 'Search these flows')),
      table(`Flows denied by ${policy}`, [
        { title: 'Flow', cell: flowLink },
        { title: 'Port', cell: (r: FlowRow) => `${protocol(r.protocol)} ${r.destinationPort}` },
        { title: 'Bytes', numeric: true, cell: (r: FlowRow) => figure(r.bytes, bytes(r.bytes)) },
        { title: 'Packets', numeric: true, cell: (r: FlowRow) => figure(r.packets, count(r.packets)) },
        { title: 'Last seen', cell: (r: FlowRow) => time(r.time) },
      ], flows, denied.scan.complete ? 'No flow of this rule in the range.' : 'None in the part of the range searched.'));
  });
  return h('div', {},
    stackedChart(data.drops, 'packets', `Denied packets per second by policy, ${data.range.bucketMs / 1000} s buckets`),
    !denied.scan.complete && h('p', { class: 'hint' }, `The flows below come from the newest part of the range only (since ${time(denied.scan.coveredFrom)}).`),
    denied.matched > denied.rows.length && h('p', { class: 'hint' }, `The flows below are those of the newest ${count(denied.rows.length)} of ${count(denied.matched)} denied exports; each rule's search has them all.`),
    section('By namespace', table('Namespaces whose Pods were denied', [
      { title: 'Namespace', cell: (r: Ranked) => h('a', { href: href('flows', { ...rangeParams(state.params), namespace: r.key[0], denied: 'true' }) }, r.key[0]!) },
      { title: 'Bytes', numeric: true, cell: (r: Ranked) => bytes(r.bytes) + error(r.error) },
      { title: 'Packets', numeric: true, cell: (r: Ranked) => count(r.packets) },
      { title: 'Exports', numeric: true, cell: (r: Ranked) => count(r.records) },
    ], data.namespaces)),
    section('By policy rule', ...(rules.length > 0 ? rules : [h('p', {}, 'No denied flow in this time range.')])),
  );
}
