// Which record the simulated Agents send next, and when: the workload's flows (lib/antrea) generation after
// generation, so that its `flows` stay running for as long as the simulation goes on. Generation g is
// flows [g·M, (g+1)·M); each starts as the one before it ends (workload.ts), so two generations overlap in
// time and are merged by export time. A record is due at the start of its export second (wall clock:
// the workload's startTime is the simulation's start).
import { type AgentRecord, type Workload } from '../antrea/workload.js';

interface Open {
  readonly records: Iterator<AgentRecord>;
  head: AgentRecord;
}

export class Schedule {
  readonly #workload: Workload;
  /** Open generations, each with its next record; the next generation is always open too, for the merge. */
  readonly #open: Open[] = [];
  #generations = 0;

  constructor(workload: Workload) {
    this.#workload = workload;
    this.#openGeneration();
    this.#openGeneration();
  }

  /** The next record in export-time order (ties: the older generation first). */
  peek(): AgentRecord {
    return this.#earliest().head;
  }

  /** Milliseconds since the epoch when the next record is due. */
  nextDue(): number {
    return this.peek().exportTime * 1000;
  }

  /** Takes the next record. */
  take(): AgentRecord {
    const open = this.#earliest();
    const record = open.head;
    const next = open.records.next();
    if (next.done === true) {
      this.#open.splice(this.#open.indexOf(open), 1);
      this.#openGeneration();
    } else open.head = next.value;
    return record;
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
