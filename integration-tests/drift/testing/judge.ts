// The judge of a drift scenario: the flow log against what the Agents really sent (sent-ledger.ts), flow by
// flow. A flow is right when
// - for each Node, the sum of its delta counters over the flow's exports is what that Node sent (a flow
//   one Node reports fills both sides from it);
// - the last export's per-Node totals are the totals of that Node's last record;
// - every export names the Pods both halves named: no half exported alone, no flow in two pieces. Only a
//   flow whose peer never sent anything may be exported with one half, and the processor must have
//   counted each such half as uncorrelated.
import { isDeepStrictEqual } from 'node:util';
import { DELTA_COUNTERS } from '../../../simulate/counters.js';
import { type Line, lineTuple } from '../../harness/flow-log.js';
import { type FlowSent, type HalfSent, TOTAL_COUNTERS } from './sent-ledger.js';

const SIDES = ['FromSourceNode', 'FromDestinationNode'] as const;
type Side = (typeof SIDES)[number];
type Counts = Record<string, number>;

export interface WrongFlow {
  readonly flow: number;
  readonly kind: FlowSent['kind'];
  readonly problems: readonly string[];
  readonly expected: unknown;
  readonly got: unknown;
}

export interface Verdict {
  /** Judged flows (anything of them sent). */
  readonly total: number;
  readonly right: number;
  readonly wrong: readonly WrongFlow[];
  /** Halves whose peer sent nothing: what the processor's uncorrelated count must be. */
  readonly uncorrelatedExpected: number;
  readonly uncorrelatedCounted: number;
  /** A line a failing assertion prints: the count right, the kinds of failure, the first few wrong flows. */
  summary(first?: number): string;
}

/** The Node that fills each side: its own half, or for a flow one Node sent, that Node on both. */
function sides(f: FlowSent): Record<Side, HalfSent | undefined> {
  const only = f.source === undefined || f.destination === undefined ? (f.source ?? f.destination) : undefined;
  if (f.reporters === 1) return { FromSourceNode: only, FromDestinationNode: only };
  return { FromSourceNode: f.source, FromDestinationNode: f.destination };
}

function expectedOf(f: FlowSent) {
  const s = sides(f);
  const deltas: Counts = {};
  const totals: Counts = {};
  for (const side of SIDES) {
    for (const c of DELTA_COUNTERS) deltas[`${c}${side}`] = s[side]?.sums[c] ?? 0;
    for (const c of TOTAL_COUNTERS) totals[`${c}${side}`] = s[side]?.lastTotals[c] ?? 0;
  }
  const halves = [f.source, f.destination].filter((h) => h !== undefined);
  const named = (pick: (h: HalfSent) => string) => halves.map(pick).find((n) => n !== '') ?? '';
  return { deltas, totals, sourcePodName: named((h) => h.sourcePodName), destinationPodName: named((h) => h.destinationPodName) };
}

/** The tuple the flow's exports carry: the source Node's (for FROM_EXTERNAL, before SNAT) when it sent, else the one half's. */
const tupleOf = (f: FlowSent) => (f.source ?? f.destination)!.tuple;

const lone = (f: FlowSent) => f.reporters === 2 && (f.source === undefined || f.destination === undefined);

function judgeFlow(f: FlowSent, lines: readonly Line[]): WrongFlow | undefined {
  const want = expectedOf(f);
  const deltas: Counts = Object.fromEntries(Object.keys(want.deltas).map((k) => [k, 0]));
  for (const l of lines) for (const k of Object.keys(deltas)) deltas[k]! += Number(l[k] ?? 0);
  const last = lines.at(-1);
  const totals: Counts = Object.fromEntries(Object.keys(want.totals).map((k) => [k, Number(last?.[k] ?? 0)]));
  const names = lines.map((l) => `${String(l.sourcePodName ?? '')}|${String(l.destinationPodName ?? '')}`);
  const wantNames = `${want.sourcePodName}|${want.destinationPodName}`;
  const problems = [
    ...(lines.length === 0 ? ['no export'] : []),
    ...(isDeepStrictEqual(deltas, want.deltas) ? [] : ['delta sums']),
    ...(isDeepStrictEqual(totals, want.totals) ? [] : ['last totals']),
    ...(names.every((n) => n === wantNames) ? [] : ['Pod names (a half alone, or the flow in pieces)']),
  ];
  if (problems.length === 0) return undefined;
  const got = { exports: lines.length, deltas, totals, podNames: [...new Set(names)] };
  return { flow: f.flow, kind: f.kind, problems, expected: { deltas: want.deltas, totals: want.totals, podNames: [wantNames] }, got };
}

/** `lines`: the flow log (any flows; only the judged ones' lines are looked at), in the order written. */
export function judge(sent: readonly FlowSent[], lines: readonly Line[], uncorrelatedCounted: number): Verdict {
  const byTuple = new Map<string, Line[]>();
  for (const f of sent) byTuple.set(tupleOf(f), []);
  for (const l of lines) byTuple.get(lineTuple(l))?.push(l);
  const wrong = sent.map((f) => judgeFlow(f, byTuple.get(tupleOf(f))!)).filter((x) => x !== undefined);
  const uncorrelatedExpected = sent.filter(lone).length;
  const total = sent.length;
  const right = total - wrong.length;
  return {
    total, right, wrong, uncorrelatedExpected, uncorrelatedCounted,
    summary(first = 3) {
      const kinds = new Map<string, number>();
      for (const w of wrong) for (const p of [...w.problems, `kind ${w.kind}`]) kinds.set(p, (kinds.get(p) ?? 0) + 1);
      const counter = uncorrelatedCounted === uncorrelatedExpected ? '' : `; uncorrelated halves counted ${uncorrelatedCounted}, expected ${uncorrelatedExpected}`;
      return `${right} of ${total} flows right${counter}; wrong: ${[...kinds].map(([k, n]) => `${k} ×${n}`).join(', ') || 'none'}` +
        wrong.slice(0, first).map((w) => `\n  flow ${w.flow} (${w.kind}): ${w.problems.join(', ')}\n    expected ${JSON.stringify(w.expected)}\n    got      ${JSON.stringify(w.got)}`).join('');
    },
  };
}

/** Right: every flow right and the uncorrelated halves counted as the ledger says. */
export const allRight = (v: Verdict): boolean => v.wrong.length === 0 && v.uncorrelatedCounted === v.uncorrelatedExpected;
