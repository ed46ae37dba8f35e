// What the drift sender really sent, per flow and per Node (half): the sums of the delta counters, the
// totals of the last record, the 5-tuple its records carry (a FROM_EXTERNAL flow's Pod Node reports the
// tuple after SNAT) and the Pod names it gave. The judge's expectations come from here, not from the plan.
import { agentFieldNames, type AgentRecord, type FlowKind, type Half, type Workload } from '../../../simulate/antrea/workload.js';
import { DELTA_COUNTERS, DELTA_INDEXES, emptySums, type Sums } from '../../../simulate/counters.js';
import { tupleKey } from '../../harness/flow-log.js';

export const TOTAL_COUNTERS = ['packetTotalCount', 'octetTotalCount', 'reversePacketTotalCount', 'reverseOctetTotalCount'] as const;
export type TotalCounter = (typeof TOTAL_COUNTERS)[number];

export interface HalfSent {
  readonly node: string;
  readonly sums: Sums;
  /** The totals of the last record sent. */
  lastTotals: Record<TotalCounter, number>;
  /** tupleKey() of its records. */
  readonly tuple: string;
  /** Pod names its records carry, '' when none. */
  readonly sourcePodName: string;
  readonly destinationPodName: string;
}

export interface FlowSent {
  readonly flow: number;
  readonly kind: FlowKind;
  /** Nodes that report the flow in the workload (whether or not they sent anything of it). */
  readonly reporters: 1 | 2;
  readonly source?: HalfSent;
  readonly destination?: HalfSent;
}

const index = (family: 4 | 6, name: string) => agentFieldNames(family).indexOf(name);
const FIELDS = {
  4: { source: index(4, 'sourceIPv4Address'), destination: index(4, 'destinationIPv4Address') },
  6: { source: index(6, 'sourceIPv6Address'), destination: index(6, 'destinationIPv6Address') },
} as const;
const AT = {
  protocol: index(4, 'protocolIdentifier'), sourcePort: index(4, 'sourceTransportPort'), destinationPort: index(4, 'destinationTransportPort'),
  sourcePodName: index(4, 'sourcePodName'), destinationPodName: index(4, 'destinationPodName'),
  totals: TOTAL_COUNTERS.map((c) => index(4, c)),
};

function recordTuple(r: AgentRecord): string {
  const v = r.values;
  const f = FIELDS[r.family];
  return tupleKey(String(v[f.source]), String(v[f.destination]), v[AT.protocol] as number, v[AT.sourcePort] as number, v[AT.destinationPort] as number);
}

const lastTotals = (r: AgentRecord) => Object.fromEntries(TOTAL_COUNTERS.map((c, i) => [c, r.values[AT.totals[i]!] as number])) as Record<TotalCounter, number>;

export class SentLedger {
  /** flow → its halves that sent something. */
  readonly #flows = new Map<number, Partial<Record<Half, HalfSent>>>();
  records = 0;

  /** The record's write to the collector's connection went through. */
  sent(r: AgentRecord): void {
    this.records++;
    let f = this.#flows.get(r.flow);
    if (f === undefined) this.#flows.set(r.flow, (f = {}));
    let h = f[r.half];
    if (h === undefined) {
      f[r.half] = h = {
        node: r.node.name, sums: emptySums(), lastTotals: lastTotals(r), tuple: recordTuple(r),
        sourcePodName: String(r.values[AT.sourcePodName]), destinationPodName: String(r.values[AT.destinationPodName]),
      };
    }
    h.sums.records++;
    for (let i = 0; i < DELTA_COUNTERS.length; i++) h.sums[DELTA_COUNTERS[i]!] += r.values[DELTA_INDEXES[i]!] as number;
    h.lastTotals = lastTotals(r);
  }

  /** The flows below `judged` (the judged generation) with anything sent, in flow order. */
  flows(w: Workload, judged: number): FlowSent[] {
    return [...this.#flows].filter(([i]) => i < judged).sort(([a], [b]) => a - b).map(([i, halves]) => {
      const plan = w.flow(i);
      return { flow: i, kind: plan.kind, reporters: plan.reporters.length === 2 ? 2 : 1, ...halves };
    });
  }
}
