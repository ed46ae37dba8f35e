// The verdict on a chaos run, in three parts, each a list of problems (none: exact):
// - the processor: per flow (key) and per Node, the delta sums of flows.processed equal those of flows.raw
//   (Aggregate: the …FromSourceNode and …FromDestinationNode sums are the two Nodes' own, or one Node's on
//   the side(s) it fills; Proxy: per flow and original exporter, the same records' sums);
// - each destination: the same rows as flows.processed, each once (the IPFIX collector, which cannot tell a
//   batch delivered twice, may hold more, never more than the exporter logged as delivered again);
// - flows.raw itself: no record twice, and every Node's records in the order it sent them.
import { DELTA_COUNTERS } from '../../../simulate/counters.js';
import type { KeyedRecord } from './log-contents.js';
import type { ChaosMode } from './profile.js';
import type { RowCounts } from './destinations.js';

type Sums = number[];
const SIDES = ['FromSourceNode', 'FromDestinationNode'] as const;

const zero = (): Sums => DELTA_COUNTERS.map(() => 0);
const add = (into: Sums, values: readonly number[]) => values.forEach((v, i) => (into[i]! += v));
const same = (a: Sums, b: Sums) => a.every((v, i) => v === b[i]);
const isZero = (a: Sums) => a.every((v) => v === 0);
const deltas = (r: KeyedRecord['record'], suffix = '') => DELTA_COUNTERS.map((c) => Number((r as unknown as Record<string, unknown>)[`${c}${suffix}`] ?? 0));

/** key → Node (observation domain) → sums, over flows.raw. */
function rawSums(raw: readonly KeyedRecord[]): Map<string, Map<number, Sums>> {
  const out = new Map<string, Map<number, Sums>>();
  for (const { key, record } of raw) {
    let nodes = out.get(key);
    if (nodes === undefined) out.set(key, (nodes = new Map()));
    let s = nodes.get(record.observationDomainId);
    if (s === undefined) nodes.set(record.observationDomainId, (s = zero()));
    add(s, deltas(record));
  }
  return out;
}

/** No record twice in flows.raw, and each Node's records of a flow in the order of their flow ends (the processor ignores a record that is not). */
export function rawProblems(raw: readonly KeyedRecord[]): string[] {
  const problems: string[] = [];
  const lastEnd = new Map<string, number>();
  for (const { key, partition, offset, record } of raw) {
    const id = `${key}/${record.observationDomainId}`;
    const end = record.flowEndMilliseconds ?? 0;
    const previous = lastEnd.get(id);
    if (previous !== undefined && end <= previous) {
      problems.push(`flows.raw ${partition}/${offset}: Node ${record.observationDomainId}'s record of flow ${key} ends at ${end}, ${end === previous ? 'a record there twice' : `before its previous record (${previous})`}`);
    }
    lastEnd.set(id, Math.max(end, previous ?? 0));
  }
  return problems;
}

export function processorProblems(mode: ChaosMode, raw: readonly KeyedRecord[], processed: readonly KeyedRecord[]): string[] {
  const expected = rawSums(raw);
  const problems: string[] = [];
  if (mode === 'Proxy') {
    const got = new Map<string, Map<number, Sums>>();
    for (const { key, record } of processed) {
      const node = Number(record.originalObservationDomainId ?? record.observationDomainId);
      const nodes = got.get(key) ?? new Map<number, Sums>();
      got.set(key, nodes);
      const s = nodes.get(node) ?? zero();
      nodes.set(node, s);
      add(s, deltas(record));
    }
    for (const [key, nodes] of expected) {
      for (const [node, want] of nodes) {
        const have = got.get(key)?.get(node) ?? zero();
        if (!same(want, have)) problems.push(`flow ${key}, Node ${node}: flows.raw sums ${want.join('/')}, flows.processed ${have.join('/')}`);
      }
    }
    for (const key of got.keys()) if (!expected.has(key)) problems.push(`flow ${key} in flows.processed, not in flows.raw`);
    return problems;
  }
  const sides = new Map<string, [Sums, Sums]>();
  for (const { key, record } of processed) {
    const s = sides.get(key) ?? [zero(), zero()];
    sides.set(key, s);
    SIDES.forEach((side, i) => add(s[i]!, deltas(record, side)));
  }
  for (const [key, nodes] of expected) {
    const [source, destination] = sides.get(key) ?? [zero(), zero()];
    const want = [...nodes.values()];
    const right = want.length === 2
      ? (same(source, want[0]!) && same(destination, want[1]!)) || (same(source, want[1]!) && same(destination, want[0]!))
      : want.length === 1 && ((same(source, want[0]!) && (same(destination, want[0]!) || isZero(destination))) || (isZero(source) && same(destination, want[0]!)));
    if (!right) {
      problems.push(`flow ${key}: flows.raw per Node ${[...nodes].map(([n, s]) => `${n}: ${s.join('/')}`).join(', ')}; flows.processed from the source Node ${source.join('/')}, from the destination Node ${destination.join('/')}`);
    }
  }
  for (const key of sides.keys()) if (!expected.has(key)) problems.push(`flow ${key} in flows.processed, not in flows.raw`);
  return problems;
}

export interface DestinationVerdict {
  readonly problems: string[];
  /** Rows there more often than in flows.processed. */
  readonly duplicates: number;
}

/** `got` against `expected` (rows of flows.processed): every row there, and each once unless `duplicatesAllowed`. */
export function destinationProblems(name: string, expected: RowCounts, got: RowCounts, duplicatesAllowed = 0): DestinationVerdict {
  const problems: string[] = [];
  let missing = 0;
  let duplicates = 0;
  let strangers = 0;
  const examples: string[] = [];
  for (const [row, n] of expected) {
    const have = got.get(row) ?? 0;
    if (have < n) {
      missing += n - have;
      if (examples.length < 3) examples.push(`missing ${row}`);
    } else duplicates += have - n;
  }
  for (const [row, n] of got) {
    if (expected.has(row)) continue;
    strangers += n;
    if (examples.length < 3) examples.push(`not in flows.processed: ${row}`);
  }
  if (missing > 0) problems.push(`${name}: ${missing} rows of flows.processed missing`);
  if (strangers > 0) problems.push(`${name}: ${strangers} rows that flows.processed does not hold`);
  if (duplicates > duplicatesAllowed) problems.push(`${name}: ${duplicates} rows twice, ${duplicatesAllowed} allowed (delivered again)`);
  if (problems.length > 0) problems.push(...examples.map((e) => `  ${e}`));
  return { problems, duplicates };
}
