// The dependency graph: namespaces as nodes (a click shows a namespace's workloads, a workload's Pods),
// traffic as arrows as thick as its bytes; an arrow opens the flows behind it. Laid out by d3-force,
// run to rest before drawing, so the picture does not move. The same edges are listed in a table, for the
// keyboard and for reading figures.
import { forceCenter, forceCollide, forceLink, forceManyBody, forceSimulation, type SimulationNodeDatum } from 'd3-force';
import type { GraphEdge, GraphNode, GraphResponse } from '../../api-types.js';
import { get } from '../api.js';
import { figure, h, section, table } from '../dom.js';
import { bytes, count, error } from '../format.js';
import { href, type PageState, type Range, rangeParams, withParams } from '../url-state.js';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 900;
const HEIGHT = 560;

type Placed = GraphNode & SimulationNodeDatum;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

const label = (n: GraphNode) => n.id.split('/').slice(-1)[0]!;
const radius = (n: GraphNode) => 14 - 3 * n.depth;

function layout(data: GraphResponse): Map<string, Placed> {
  const nodes: Placed[] = data.nodes.map((n) => ({ ...n }));
  const links = data.edges.filter((e) => e.source !== e.target).map((e) => ({ source: e.source, target: e.target }));
  const sim = forceSimulation(nodes)
    .force('link', forceLink<Placed, { source: string; target: string }>(links).id((n) => n.id).distance(140))
    .force('charge', forceManyBody().strength(-500))
    .force('center', forceCenter(WIDTH / 2, HEIGHT / 2))
    .force('collide', forceCollide(40))
    .stop();
  sim.tick(300);
  for (const n of nodes) {
    n.x = Math.min(WIDTH - 60, Math.max(60, n.x ?? 0));
    n.y = Math.min(HEIGHT - 30, Math.max(30, n.y ?? 0));
  }
  return new Map(nodes.map((n) => [n.id, n]));
}

export async function graphView(state: PageState, range: Range): Promise<Node> {
  const expanded = new Set((state.params.get('expand') ?? '').split(',').filter((x) => x !== ''));
  // A picture holds fewer edges than a table: the heaviest 80, the table below lists the same.
  const data = await get<GraphResponse>('graph', { from: range.from, to: range.to, expand: [...expanded].join(','), maxEdges: 80 });
  const placed = layout(data);
  const heaviest = Math.max(1, ...data.edges.map((e) => e.bytes));
  const flowsOf = (e: GraphEdge) => href('flows', { ...rangeParams(state.params), src: e.source, dst: e.target });
  const toggle = (id: string) => {
    const next = new Set(expanded);
    if (next.has(id)) for (const x of [...next]) if (x === id || x.startsWith(`${id}/`)) next.delete(x);
    if (!expanded.has(id)) next.add(id);
    return href('graph', withParams(state.params, { expand: [...next].join(',') }));
  };
  const picture = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': 'Traffic between namespaces' },
    svg('defs', {}, svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 12, markerHeight: 12, markerUnits: 'userSpaceOnUse', orient: 'auto' }, svg('path', { d: 'M0,0L10,5L0,10z', class: 'arrowhead' }))),
    ...data.edges.map((e) => {
      const a = placed.get(e.source)!;
      const b = placed.get(e.target)!;
      const title = svg('title', {}, `${e.source} → ${e.target}: ${bytes(e.bytes)}`);
      const width = 1.5 + 10 * Math.sqrt(e.bytes / heaviest);
      // Traffic within a node: a loop beside it.
      if (e.source === e.target) return svg('a', { href: flowsOf(e), class: 'edge' }, title, svg('path', { d: `M${a.x! + 8},${a.y! - 8} c30,-45 60,5 8,16`, 'stroke-width': width }));
      // Two-way traffic gets two arcs, bent to either side of the straight line; each ends at the edge of
      // its target's circle, along the curve's direction there, where its arrowhead goes.
      const cx = (a.x! + b.x!) / 2 - (b.y! - a.y!) * 0.15;
      const cy = (a.y! + b.y!) / 2 + (b.x! - a.x!) * 0.15;
      const length = Math.hypot(b.x! - cx, b.y! - cy) || 1;
      const back = radius(b) + 2;
      const ex = b.x! - ((b.x! - cx) / length) * back;
      const ey = b.y! - ((b.y! - cy) / length) * back;
      return svg('a', { href: flowsOf(e), class: 'edge' }, title, svg('path', { d: `M${a.x},${a.y} Q${cx},${cy} ${ex},${ey}`, 'stroke-width': width, 'marker-end': 'url(#arrow)' }));
    }),
    ...[...placed.values()].map((n) => svg('a', { href: toggle(n.id), class: `node depth-${n.depth}` },
      svg('title', {}, `${n.id}: ${bytes(n.bytesOut)} out, ${bytes(n.bytesIn)} in${n.depth < 2 ? ' (select to expand or collapse)' : ''}`),
      svg('circle', { cx: n.x!, cy: n.y!, r: radius(n) }),
      svg('text', { x: n.x!, y: n.y! + 28 - 3 * n.depth }, label(n)))),
  );
  return h('div', {},
    h('p', { class: 'hint' }, 'Namespaces and the traffic between them. Select a namespace to see its workloads, a workload to see its Pods; an arrow opens its flows.',
      expanded.size > 0 && h('a', { href: href('graph', withParams(state.params, { expand: undefined })) }, ' Collapse all.')),
    h('figure', { class: 'graph' }, picture),
    data.truncated && h('p', { class: 'hint' }, `Only the ${data.edges.length} heaviest edges are drawn.`),
    section('Edges', table('Traffic between the nodes of the graph, by bytes', [
      { title: 'Source → destination', cell: (e: GraphEdge) => h('a', { href: flowsOf(e) }, `${e.source} → ${e.target}`) },
      { title: 'Bytes', numeric: true, cell: (e: GraphEdge) => figure(e.bytes, bytes(e.bytes) + error(e.error)) },
      { title: 'Packets', numeric: true, cell: (e: GraphEdge) => figure(e.packets, count(e.packets)) },
    ], data.edges)),
  );
}
