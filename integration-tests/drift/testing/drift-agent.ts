// One simulated Antrea Agent of the drift sender: its Node's stream of due records, a cursor into it, and
// its IPFIX-over-TCP connection (simulate's StreamLink: templates first, then data; a new connection is
// a new session). It sends what is due before the limit the sender gives it, while its connection takes
// more; what it does not send yet it keeps (an Agent's buffer), with its original export times.
import type { AgentNode } from '../../../simulate/antrea/workload.js';
import type { DeltaCarry } from '../../../simulate/carry.js';
import type { Link } from '../../../simulate/link.js';
import type { DueRecord } from './agent-streams.js';
import type { SentLedger } from './sent-ledger.js';

/** Records per write: as an Agent's exporting process fills messages, and small enough to interleave the Agents. */
const BATCH = 256;
const CLOSE_TIMEOUT_MS = 5000;

export class DriftAgent {
  #link: Link | undefined;
  #next = 0;
  /** Records whose write failed (the connection went first). */
  lost = 0;

  constructor(
    readonly node: AgentNode,
    private readonly stream: readonly DueRecord[],
    private readonly newLink: () => Link,
    private readonly ledger: SentLedger,
    private readonly carry: DeltaCarry,
  ) {}

  get connected(): boolean {
    return this.#link !== undefined;
  }

  get up(): boolean {
    return this.#link?.state === 'up';
  }

  /** Due time of the next record to send, Infinity when none is left. */
  get nextDue(): number {
    return this.stream[this.#next]?.due ?? Infinity;
  }

  /** Opens a new connection (and IPFIX session). */
  connect(): void {
    this.#link = this.newLink();
    this.#link.start();
  }

  /** Ends the connection (every write reported by then); what is due from now on waits for the next one. */
  async disconnect(): Promise<void> {
    const link = this.#link;
    this.#link = undefined;
    await link?.close(CLOSE_TIMEOUT_MS);
  }

  /** An Agent that starts late: what was due before `time` is never sent, and its next record of each flow carries those counts. */
  skipUntil(time: number): void {
    for (; this.nextDue < time; this.#next++) this.carry.skip(this.stream[this.#next]!.record);
  }

  /** An Agent that stops for good: nothing more is sent. */
  async stop(): Promise<void> {
    this.#next = this.stream.length;
    await this.disconnect();
  }

  /** Sends the records due before `limit` (agent time, s) while the connection takes them; true when it sent any. */
  pump(limit: number): boolean {
    const link = this.#link;
    let sent = false;
    const due = () => this.#next < this.stream.length && this.stream[this.#next]!.due < limit;
    while (link?.ready === true && due()) {
      const batch = [];
      for (; batch.length < BATCH && due(); this.#next++) {
        const r = this.stream[this.#next]!.record;
        this.carry.send(r);
        batch.push(r);
      }
      link.send(batch, (records, err) => {
        if (err === undefined) for (const r of records) this.ledger.sent(r);
        else this.lost += records.length;
      });
      sent = true;
    }
    return sent;
  }
}

