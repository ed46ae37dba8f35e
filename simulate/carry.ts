// What an Agent's delta counters say when it could not export for a while. An Agent computes a delta as
// the total now minus the total it last exported, so when the simulator cannot send a record (its Node is
// reconnecting, or its connection is backed up) the packets are not lost: the Node's next record of that
// flow carries them. The workload's counters grow by a constant per export interval (its `rate`), so a
// record sent `gap` intervals after the last one sent carries gap × its one-interval delta.
import type { AgentRecord } from './antrea/workload.js';
import { DELTA_INDEXES } from './counters.js';

export class DeltaCarry {
  /** flow·2 + half → the round last sent; deleted with the flow's last round. */
  readonly #lastSent = new Map<number, number>();
  readonly #lastRound: number;

  constructor(recordsPerHalf: number) {
    this.#lastRound = recordsPerHalf - 1;
  }

  /** Flow halves with a record sent and rounds still to come. */
  get open(): number {
    return this.#lastSent.size;
  }

  /** The record is being sent: its deltas grow to cover the rounds skipped since the last one sent. */
  send(r: AgentRecord): void {
    const key = r.flow * 2 + (r.half === 'source' ? 0 : 1);
    const gap = r.round - (this.#lastSent.get(key) ?? -1);
    if (gap > 1) for (const i of DELTA_INDEXES) r.values[i] = (r.values[i] as number) * gap;
    if (r.round === this.#lastRound) this.#lastSent.delete(key);
    else this.#lastSent.set(key, r.round);
  }

  /** The record is not sent; its counts go with the Node's next record of the flow, if any. */
  skip(r: AgentRecord): void {
    if (r.round === this.#lastRound) this.#lastSent.delete(r.flow * 2 + (r.half === 'source' ? 0 : 1));
  }
}
