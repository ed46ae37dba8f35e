// The views' figures, computed from a range of buckets (rollups.ts). Pure. A key's figures over a range
// are the sums over its buckets; its `error` adds each bucket's bound: the key's own error where a bucket
// holds it, the bucket's floor where it does not (it may have been evicted there). Error 0: exact.
import { doubled } from '../../lib/typed-arrays.js';
import { type Bucket, type Dimension, SEPARATOR } from './rollups.js';
import { workloadOf } from './flow-facts.js';
import type { GraphEdge, GraphNode, GraphView, Ranked, Series, TimeSeriesView } from './api-types.js';

/**
 * Every key of a dimension over the buckets, with its sums and error bound: columns indexed by the key's
 * position in `keys`, since a range of a flooded hour merges hundreds of thousands of keys, and an object
 * per key costs the garbage collector more than the merge itself.
 */
export class Merged {
  readonly keys: string[] = [];
  readonly #index = new Map<string, number>();
  bytes = new Float64Array(1024);
  packets = new Float64Array(1024);
  records = new Float64Array(1024);
  error = new Float64Array(1024);
  /** Per key, the floors of the buckets that held it. */
  #floors = new Float64Array(1024);

  /** `keep`, when given, picks the keys wanted (the others are not merged at all). */
  constructor(buckets: readonly Bucket[], dimension: Dimension, keep?: (key: string) => boolean) {
    let floors = 0;
    for (const b of buckets) {
      const top = b.top[dimension];
      floors += top.floor;
      for (const e of top.entries()) {
        if (keep !== undefined && !keep(e.key)) continue;
        let i = this.#index.get(e.key);
        if (i === undefined) {
          i = this.keys.length;
          this.keys.push(e.key);
          this.#index.set(e.key, i);
          if (i === this.bytes.length) this.#grow();
        }
        this.bytes[i]! += e.bytes;
        this.packets[i]! += e.packets;
        this.records[i]! += e.records;
        this.error[i]! += e.error;
        this.#floors[i]! += top.floor;
      }
    }
    // Where a bucket does not hold the key, it had at most that bucket's floor there.
    for (let i = 0; i < this.keys.length; i++) this.error[i]! += floors - this.#floors[i]!;
  }

  get size(): number {
    return this.keys.length;
  }

  at(key: string): number | undefined {
    return this.#index.get(key);
  }

  #grow(): void {
    this.bytes = doubled(this.bytes);
    this.packets = doubled(this.packets);
    this.records = doubled(this.records);
    this.error = doubled(this.error);
    this.#floors = doubled(this.#floors);
  }

  /** The indexes of the `limit` heaviest keys, heaviest first, without sorting them all. */
  heaviest(limit: number): number[] {
    const best: number[] = [];
    if (limit <= 0) return best;
    for (let i = 0; i < this.keys.length; i++) {
      if (best.length === limit && this.bytes[i]! <= this.bytes[best[limit - 1]!]!) continue;
      let at = best.length === limit ? limit - 1 : best.length;
      while (at > 0 && this.bytes[best[at - 1]!]! < this.bytes[i]!) {
        best[at] = best[at - 1]!;
        at--;
      }
      best[at] = i;
    }
    return best;
  }
}

export function merged(buckets: readonly Bucket[], dimension: Dimension, keep?: (key: string) => boolean): Merged {
  return new Merged(buckets, dimension, keep);
}

const heaviest = (a: { bytes: number }, b: { bytes: number }) => b.bytes - a.bytes;

/** The `limit` heaviest keys, as the API serves them (the key split at the separator). */
export function top(buckets: readonly Bucket[], dimension: Dimension, limit: number): Ranked[] {
  const m = merged(buckets, dimension);
  return m.heaviest(Math.min(limit, m.size)).map((i) => ({ key: m.keys[i]!.split(SEPARATOR), bytes: m.bytes[i]!, packets: m.packets[i]!, records: m.records[i]!, error: m.error[i]! }));
}

/** Per bucket, the totals and the `stacks` heaviest keys of a dimension over the range; the rest as "other". */
export function timeSeries(buckets: readonly Bucket[], bucketMs: number, dimension: 'namespace' | 'node', stacks: number): TimeSeriesView {
  const keys = top(buckets, dimension, stacks).map((r) => r.key[0]!);
  const series: Series[] = keys.map((key) => ({ key, bytes: [], packets: [] }));
  const other: Series = { key: 'other', bytes: [], packets: [] };
  const total: Series = { key: 'total', bytes: [], packets: [] };
  for (const b of buckets) {
    let bytes = 0;
    let packets = 0;
    keys.forEach((key, i) => {
      const e = b.top[dimension].get(key);
      series[i]!.bytes.push(e?.bytes ?? 0);
      series[i]!.packets.push(e?.packets ?? 0);
      bytes += e?.bytes ?? 0;
      packets += e?.packets ?? 0;
    });
    // An estimate above the true count (a sketch's error) can exceed what the bucket holds in all.
    other.bytes.push(Math.max(0, b.totals.bytes - bytes));
    other.packets.push(Math.max(0, b.totals.packets - packets));
    total.bytes.push(b.totals.bytes);
    total.packets.push(b.totals.packets);
  }
  return { bucketMs, times: buckets.map((b) => b.start), total, series: [...series, other] };
}

/** Policy drops per bucket: the `stacks` policies with the most denied bytes, and the rest. */
export function dropSeries(buckets: readonly Bucket[], bucketMs: number, stacks: number): TimeSeriesView {
  const rules = top(buckets, 'policy', Number.MAX_SAFE_INTEGER);
  const byPolicy = new Map<string, string[]>();
  for (const r of rules) byPolicy.set(r.key[1]!, [...(byPolicy.get(r.key[1]!) ?? []), r.key.join(SEPARATOR)]);
  const policies = [...byPolicy.keys()].slice(0, stacks);
  const series: Series[] = policies.map((key) => ({ key, bytes: [], packets: [] }));
  const other: Series = { key: 'other', bytes: [], packets: [] };
  const total: Series = { key: 'total', bytes: [], packets: [] };
  for (const b of buckets) {
    let bytes = 0;
    let packets = 0;
    policies.forEach((policy, i) => {
      let pb = 0;
      let pp = 0;
      for (const rule of byPolicy.get(policy)!) {
        const e = b.top.policy.get(rule);
        pb += e?.bytes ?? 0;
        pp += e?.packets ?? 0;
      }
      series[i]!.bytes.push(pb);
      series[i]!.packets.push(pp);
      bytes += pb;
      packets += pp;
    });
    other.bytes.push(Math.max(0, b.totals.deniedBytes - bytes));
    other.packets.push(Math.max(0, b.totals.deniedPackets - packets));
    total.bytes.push(b.totals.deniedBytes);
    total.packets.push(b.totals.deniedPackets);
  }
  return { bucketMs, times: buckets.map((b) => b.start), total, series: [...series, other] };
}

/** How deep an end is shown: 0 namespace, 1 workload, 2 Pod. */
type Depth = 0 | 1 | 2;
const PAIR_OF_DEPTH: Record<Depth, Dimension> = { 0: 'namespacePair', 1: 'workloadPair', 2: 'podPair' };

/**
 * The dependency graph: namespaces as nodes, those in `expanded` (namespaces, and `ns/workload`s) shown
 * as their workloads or Pods. Each edge between shown nodes comes from the one pair dimension that
 * matches the deeper of its two ends, so no traffic is counted twice.
 */
export function graph(buckets: readonly Bucket[], expanded: ReadonlySet<string>, maxEdges: number): GraphView {
  const show = (namespace: string, workload: string, pod: string): { id: string; depth: Depth } => {
    if (!expanded.has(namespace)) return { id: namespace, depth: 0 };
    const wl = `${namespace}/${workload}`;
    return expanded.has(wl) ? { id: `${namespace}/${workload}/${pod}`, depth: 2 } : { id: wl, depth: 1 };
  };
  /** A pair dimension's end, as namespace, workload and Pod. */
  const parts = (end: string, depth: Depth): [string, string, string] => {
    if (depth === 0) return [end, '', ''];
    const slash = end.indexOf('/');
    const ns = end.slice(0, slash);
    const rest = end.slice(slash + 1);
    return depth === 1 ? [ns, rest, ''] : [ns, ns === 'external' ? rest : workloadOf(rest), rest];
  };
  const edges = new Map<string, GraphEdge>();
  const nodes = new Map<string, GraphNode>();
  // A pair of workloads is shown only when an end's namespace is expanded, a pair of Pods only when an
  // end's workload is: the deeper dimensions are merged for those keys alone.
  const expandedEnd = (key: string, depth: 1 | 2) => {
    const tab = key.indexOf(SEPARATOR);
    return [key.slice(0, tab), key.slice(tab + 1)].some((end) => {
      const slash = end.indexOf('/');
      const ns = end.slice(0, slash);
      if (!expanded.has(ns)) return false;
      const pod = end.slice(slash + 1);
      return depth === 1 || expanded.has(`${ns}/${ns === 'external' ? pod : workloadOf(pod)}`);
    });
  };
  for (const depth of [0, 1, 2] as const) {
    if (depth > 0 && expanded.size === 0) break;
    const m = merged(buckets, PAIR_OF_DEPTH[depth], depth === 0 ? undefined : (key) => expandedEnd(key, depth));
    for (let i = 0; i < m.size; i++) {
      const [from, to] = m.keys[i]!.split(SEPARATOR) as [string, string];
      const a = show(...parts(from, depth));
      const b = show(...parts(to, depth));
      // A pair shown at a shallower depth comes from a coarser dimension; a deeper one cannot be shown from this one.
      if (Math.max(a.depth, b.depth) !== depth) continue;
      const id = a.id + SEPARATOR + b.id;
      let e = edges.get(id);
      if (e === undefined) edges.set(id, (e = { source: a.id, target: b.id, bytes: 0, packets: 0, error: 0 }));
      e.bytes += m.bytes[i]!;
      e.packets += m.packets[i]!;
      e.error += m.error[i]!;
    }
  }
  const kept = [...edges.values()].sort(heaviest).slice(0, maxEdges);
  for (const e of kept) {
    for (const [id, out] of [[e.source, true], [e.target, false]] as const) {
      let n = nodes.get(id);
      if (n === undefined) nodes.set(id, (n = { id, namespace: id.split('/')[0]!, depth: id.split('/').length - 1, bytesOut: 0, bytesIn: 0 }));
      if (out) n.bytesOut += e.bytes;
      else n.bytesIn += e.bytes;
    }
  }
  return { nodes: [...nodes.values()], edges: kept, truncated: edges.size > kept.length };
}
