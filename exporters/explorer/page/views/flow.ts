// One flow: its record with every field, and every export of it in the range.
import type { FlowResponse } from '../../api-types.js';
import { get } from '../api.js';
import { h, section, table } from '../dom.js';
import { href, type PageState, type Range } from '../url-state.js';
import { rowColumns } from './flows.js';

const PATH_MARGIN_MS = 60_000;

export async function flow(state: PageState, range: Range): Promise<Node> {
  const data = await get<FlowResponse>('flow', { partition: state.params.get('partition') ?? '', offset: state.params.get('offset') ?? '', from: range.from, to: range.to });
  const r = data.row;
  // The path view reads the log: around this flow's own time, its budget covers far more of what matters.
  const path = href('path', { from: r.start - PATH_MARGIN_MS, to: r.time + PATH_MARGIN_MS, src: r.sourceAddress, dst: r.destinationAddress, proto: r.protocol, sport: r.sourcePort, dport: r.destinationPort, snat: r.snat || undefined });
  const fields = Object.entries(data.record);
  return h('div', {},
    h('p', {}, h('a', { href: path }, 'Every observation point of this flow (path view)')),
    section('Exports of this flow', table('Every export of the flow in the range, oldest first', rowColumns(state), data.exports)),
    section('Record', table(`Partition ${r.partition}, offset ${r.offset}`, [
      { title: 'Field', cell: ([k]: [string, unknown]) => h('code', {}, k) },
      { title: 'Value', cell: ([, v]: [string, unknown]) => (typeof v === 'object' ? JSON.stringify(v) : String(v)) },
    ], fields)),
  );
}
