// What the simulated Agents sent: per Node, records written to the collector, lost in transit and skipped
// (see carry.ts) and the sums of the delta counters sent; the same over all Nodes; and, when asked, per
// flow and half, so that an end-to-end test can compare every flow with the collector's output.
import type { AgentRecord, FlowEnds, FlowPlan, Workload } from './antrea/workload.js';
import { DELTA_COUNTERS, DELTA_INDEXES, emptySums, type Sums } from './counters.js';

export interface NodeTally extends Sums {
  /** Records handed to a connection whose write failed. */
  lost: number;
  /** Records not sent because the Node was not connected or its connection was backed up (carried). */
  skipped: number;
}

/** A flow and what each reporting Node sent of it. */
export interface FlowSums {
  readonly flow: number;
  readonly kind: FlowPlan['kind'];
  readonly family: 4 | 6;
  /** The flow's original 5-tuple (for FROM_EXTERNAL, the client's, as the aggregated record shows it). */
  readonly sourceAddress: string;
  readonly destinationAddress: string;
  readonly protocol: number;
  readonly sourcePort: number;
  readonly destinationPort: number;
  /** Nodes that report the flow: 2 when its halves are correlated (inter-Node, from external through another Node), else 1. */
  readonly reporters: 1 | 2;
  /** Its Pods (none at an end outside the cluster) and, for a denied flow, the rule. */
  readonly ends: FlowEnds;
  /** The source Node's half (or the one Node reporting a flow that needs no correlation, when it is the source Node). */
  readonly source?: Sums & { readonly node: string };
  readonly destination?: Sums & { readonly node: string };
}

const SIDE_WIDTH = 1 + DELTA_COUNTERS.length;

const [PACKETS, OCTETS, REVERSE_PACKETS, REVERSE_OCTETS] = DELTA_INDEXES as [number, number, number, number];

/** Property by property rather than by DELTA_COUNTERS' names: it runs for every record sent. */
function addTo(s: Sums, r: AgentRecord): void {
  const v = r.values;
  s.records++;
  s.packetDeltaCount += v[PACKETS] as number;
  s.octetDeltaCount += v[OCTETS] as number;
  s.reversePacketDeltaCount += v[REVERSE_PACKETS] as number;
  s.reverseOctetDeltaCount += v[REVERSE_OCTETS] as number;
}

export class Ledger {
  readonly nodes: readonly NodeTally[];
  readonly totals: Sums = emptySums();
  lostRecords = 0;
  /** Records skipped, by why: the simulation behind its schedule, or the Node's link not ready. */
  readonly skippedRecords = { late: 0, unavailable: 0 };
  /** flow → [records, deltas…] of the source half, then of the destination half. */
  readonly #flows: Map<number, Float64Array> | undefined;

  constructor(nodeCount: number, opts: { perFlow: boolean }) {
    this.nodes = Array.from({ length: nodeCount }, () => ({ ...emptySums(), lost: 0, skipped: 0 }));
    this.#flows = opts.perFlow ? new Map() : undefined;
  }

  /** The record was written to the collector's connection. */
  sent(r: AgentRecord): void {
    addTo(this.nodes[r.node.index]!, r);
    addTo(this.totals, r);
    if (this.#flows === undefined) return;
    let f = this.#flows.get(r.flow);
    if (f === undefined) this.#flows.set(r.flow, (f = new Float64Array(2 * SIDE_WIDTH)));
    const at = r.half === 'source' ? 0 : SIDE_WIDTH;
    f[at]!++;
    for (let i = 0; i < DELTA_INDEXES.length; i++) f[at + 1 + i]! += r.values[DELTA_INDEXES[i]!] as number;
  }

  lost(r: AgentRecord): void {
    this.nodes[r.node.index]!.lost++;
    this.lostRecords++;
  }

  skipped(r: AgentRecord, why: keyof Ledger['skippedRecords']): void {
    this.nodes[r.node.index]!.skipped++;
    this.skippedRecords[why]++;
  }

  /** Every flow with a record sent, in flow order; undefined unless kept per flow. */
  flows(workload: Workload): FlowSums[] | undefined {
    if (this.#flows === undefined) return undefined;
    return [...this.#flows.keys()].sort((a, b) => a - b).map((i) => {
      const plan = workload.flow(i);
      const f = this.#flows!.get(i)!;
      const side = (half: 'source' | 'destination') => {
        const at = half === 'source' ? 0 : SIDE_WIDTH;
        const reporter = plan.reporters.find((x) => x.half === half);
        if (reporter === undefined || f[at] === 0) return undefined;
        const s: Sums & { node: string } = { node: reporter.node.name, ...emptySums(), records: f[at]! };
        DELTA_COUNTERS.forEach((c, k) => (s[c] = f[at + 1 + k]!));
        return s;
      };
      const source = side('source');
      const destination = side('destination');
      return {
        flow: i, kind: plan.kind, family: plan.family, sourceAddress: plan.sourceAddress, destinationAddress: plan.destinationAddress,
        protocol: plan.protocol, sourcePort: plan.sourcePort, destinationPort: plan.destinationPort, reporters: plan.reporters.length === 2 ? 2 : 1, ends: workload.ends(plan),
        ...(source && { source }), ...(destination && { destination }),
      };
    });
  }
}
