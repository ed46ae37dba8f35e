// Which record the simulated Agents send next, and when: the workload's flows (simulate/antrea) generation after
// generation, so that its `flows` stay running for as long as the simulation goes on. Generation g is
// flows [g·M, (g+1)·M); each starts as the one before it ends (workload.ts), so two generations overlap in
// time and are merged by export time. A record is due at the start of its export second on the wall clock.
// Laying out the first generations takes a while with many flows, so the schedule is aligned once that is
// done: every time of the workload moves by the same whole seconds, as if it had started then.
import { agentFieldNames, type AgentRecord, type Workload } from './antrea/workload.js';

const FLOW_START = agentFieldNames(4).indexOf('flowStartSeconds');
const FLOW_END = agentFieldNames(4).indexOf('flowEndSeconds');

interface Open {
  readonly records: Iterator<AgentRecord>;
  head: AgentRecord;
}

export class Schedule {
  readonly #workload: Workload;
  /** Open generations, each with its next record; the next generation is always open too, for the merge. */
  readonly #open: Open[] = [];
  #generations = 0;
  /** Seconds added to the workload's times. */
  #shift = 0;

  constructor(workload: Workload) {
    this.#workload = workload;
    this.#openGeneration();
    this.#openGeneration();
  }

  /** Moves the workload's times so that its first record falls due at `nowMs` (if later than planned). */
  alignTo(nowMs: number): void {
    this.#shift = Math.max(0, Math.floor(nowMs / 1000) - this.#earliest().head.exportTime);
  }

  /** Milliseconds since the epoch when the next record is due. */
  nextDue(): number {
    return (this.#earliest().head.exportTime + this.#shift) * 1000;
  }

  /** Takes the next record, in export-time order (ties: the older generation first). */
  take(): AgentRecord {
    const open = this.#earliest();
    const record = open.head;
    const next = open.records.next();
    if (next.done === true) {
      this.#open.splice(this.#open.indexOf(open), 1);
      this.#openGeneration();
    } else open.head = next.value;
    if (this.#shift === 0) return record;
    const values = record.values;
    values[FLOW_START] = (values[FLOW_START] as number) + this.#shift;
    values[FLOW_END] = (values[FLOW_END] as number) + this.#shift;
    return { ...record, exportTime: record.exportTime + this.#shift };
  }

  #earliest(): Open {
    let best = this.#open[0]!;
    for (const o of this.#open) if (o.head.exportTime < best.head.exportTime) best = o;
    return best;
  }

  #openGeneration(): void {
    const m = this.#workload.flowCount;
    const g = this.#generations++;
    const records = this.#workload.records(g * m, (g + 1) * m);
    const first = records.next();
    // A generation always has records: every flow has at least one reporter and one record per half.
    if (first.done !== true) this.#open.push({ records, head: first.value });
  }
}
