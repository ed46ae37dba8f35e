// One simulated Antrea Agent: its Node, its link to the collector, and the records due that it has yet to
// hand over. A record due while the link is not ready (reconnecting, or backed up) is skipped, its counts
// carried into the Node's next record of the flow (carry.ts); every record handed over ends up sent or
// lost in the ledger.
import type { AgentNode, AgentRecord } from './antrea/workload.js';
import type { DeltaCarry } from './carry.js';
import type { Ledger } from './ledger.js';
import type { Link, WriteDone } from './link.js';

export class Agent {
  #batch: AgentRecord[] = [];

  constructor(
    readonly node: AgentNode,
    readonly link: Link,
    private readonly ledger: Ledger,
    private readonly carry: DeltaCarry,
  ) {}

  /** The record is due: true when it will go out with the next flush, false when it was skipped. */
  offer(r: AgentRecord): boolean {
    if (!this.link.ready) {
      this.carry.skip(r);
      this.ledger.skipped(r, 'unavailable');
      return false;
    }
    this.carry.send(r);
    this.#batch.push(r);
    return true;
  }

  /** The record is too late to be sent (the simulation is behind its schedule): skipped. */
  late(r: AgentRecord): void {
    this.carry.skip(r);
    this.ledger.skipped(r, 'late');
  }

  /** Writes what was offered since the last flush. */
  flush(): void {
    if (this.#batch.length === 0) return;
    const batch = this.#batch;
    this.#batch = [];
    this.link.send(batch, this.#done);
  }

  readonly #done: WriteDone = (records, err) => {
    if (err === undefined) for (const r of records) this.ledger.sent(r);
    else for (const r of records) this.ledger.lost(r);
  };
}
