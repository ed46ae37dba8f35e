// A simulated Node's connection to the collector, whatever the transport. The Agent (agent.ts) hands a link
// the records due while it is ready; the link writes them as its transport's messages and reports, for every
// record, whether its write went through. Links reconnect on their own after a failure.
import type { BackoffPolicy } from '../lib/retry.js';
import type { AgentRecord } from './antrea/workload.js';
import type { Encoded } from './ipfix-session.js';

export type LinkState = 'connecting' | 'up' | 'down' | 'closed';

/** Called once per written message with the records it carried: err undefined when written, else lost. */
export type WriteDone = (records: readonly AgentRecord[], err: Error | undefined) => void;

export interface Link {
  readonly state: LinkState;
  /** Connections made (the first and every reconnect). */
  readonly connects: number;
  readonly messages: number;
  readonly bytes: number;
  /** The last connection or write error, for the progress line and the summary. */
  readonly lastError: string | undefined;
  /** The local address the Node's connections come from, when the link binds one. */
  readonly sourceAddress: string | undefined;
  /** Up, with room in its buffers: records sent now are written now. */
  readonly ready: boolean;
  /** Starts connecting (and reconnecting, after failures, until close). */
  start(): void;
  send(records: readonly AgentRecord[], done: WriteDone): void;
  /** Writes out what was sent, ends the session, and resolves within `timeoutMs` whatever the peer does. */
  close(timeoutMs: number): Promise<void>;
}

/**
 * Reconnect delays: 250 ms doubling to 5 s, an Agent's export interval (it retries on its next tick). No
 * jitter: an Agent's retry waits for its tick, and Agents' ticks are not aligned with each other anyway.
 */
export const RECONNECT_BACKOFF: BackoffPolicy = { initialMs: 250, maxMs: 5000, jitter: 0 };

export const NOT_CONNECTED = (): Error => new Error('not connected');

type Callback = (err?: Error | null) => void;

/** What every link counts, and the bookkeeping that makes each record's outcome reported exactly once. */
export abstract class LinkBase {
  state: LinkState = 'connecting';
  connects = 0;
  messages = 0;
  bytes = 0;
  lastError: string | undefined;
  /** Writes not called back yet, each failing itself when its connection goes first. */
  readonly #pending = new Set<() => void>();

  /** The write callback of one message: reports its records once, as lost if the connection goes first. */
  protected written(message: Uint8Array, records: readonly AgentRecord[], done: WriteDone): Callback {
    this.messages++;
    this.bytes += message.length;
    let settled = false;
    const settle = (err?: Error | null) => {
      if (settled) return;
      settled = true;
      this.#pending.delete(fail);
      done(records, err ?? undefined);
    };
    const fail = () => settle(new Error('connection closed'));
    this.#pending.add(fail);
    return settle;
  }

  /** Writes IPFIX messages, each with the records it carries (ipfix-session.ts). */
  protected writeMessages(encoded: Encoded, records: readonly AgentRecord[], done: WriteDone, write: (message: Uint8Array, cb: Callback) => void): void {
    let at = 0;
    for (let i = 0; i < encoded.messages.length; i++) {
      const message = encoded.messages[i]!;
      write(message, this.written(message, records.slice(at, (at += encoded.counts[i]!)), done));
    }
  }

  /** The connection is gone: what it had not confirmed is lost. */
  protected failPending(): void {
    for (const fail of [...this.#pending]) fail();
  }
}
