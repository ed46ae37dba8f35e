// What each Agent has to send, in its own export-time order: the judged generation of the workload's flows,
// then filler (a later generation's flows, a few of them, which go on where the judged ones end) until the
// given agent time, so that an event-time clock moves past every judged flow's deadlines. An Agent's clock
// may be off: its export times and flow times are shifted, while it still sends when the true time comes.
import { agentFieldNames, type AgentNode, type AgentRecord, type Workload } from '../../../simulate/antrea/workload.js';

export interface DueRecord {
  /** The true agent time (s) at which the Agent exports it; its own clock may say otherwise (exportTime). */
  readonly due: number;
  readonly record: AgentRecord;
}

export interface StreamOptions {
  /** Filler flows end by this agent time (s, true). */
  readonly fillerUntil: number;
  /** Flows of each later generation sent as filler. */
  readonly fillerFlows: number;
  /** Seconds an Agent's clock is ahead (negative: behind). */
  readonly clockOffset?: (node: AgentNode) => number;
  /** Nodes that send no filler (an Agent gone for good): the filler then has no flow of theirs, so no half of it waits for them. */
  readonly withoutFiller?: ReadonlySet<number>;
}

const TIME_FIELDS = ['flowStartSeconds', 'flowEndSeconds'].map((name) => agentFieldNames(4).indexOf(name));

function shifted(r: AgentRecord, by: number): AgentRecord {
  if (by === 0) return r;
  const values = [...r.values];
  for (const i of TIME_FIELDS) values[i] = (values[i] as number) + by;
  return { ...r, exportTime: r.exportTime + by, values };
}

/** Per node (by index), its records with when they are due, in due order. */
export function agentStreams(w: Workload, o: StreamOptions): DueRecord[][] {
  const streams: DueRecord[][] = w.nodes.map(() => []);
  const add = (r: AgentRecord) => streams[r.node.index]!.push({ due: r.exportTime, record: shifted(r, o.clockOffset?.(r.node) ?? 0) });
  for (const r of w.records()) add(r);
  const generationS = w.options.recordsPerHalf * w.options.exportIntervalS;
  const generations = Math.ceil((o.fillerUntil - w.options.startTime) / generationS);
  for (let g = 1; g <= generations; g++) {
    const from = g * w.flowCount;
    const records = [...w.records(from, from + o.fillerFlows)];
    // Whole flows only: a filler flow cut off would leave a half waiting for a peer that never comes.
    const cut = new Set(records.filter((r) => r.exportTime > o.fillerUntil).map((r) => r.flow));
    for (const r of records) {
      if (cut.has(r.flow) || w.flow(r.flow).reporters.some((x) => o.withoutFiller?.has(x.node.index) === true)) continue;
      add(r);
    }
  }
  // A generation's first records come before the previous one's last: order by due time (stable).
  for (const s of streams) s.sort((a, b) => a.due - b.due);
  return streams;
}
