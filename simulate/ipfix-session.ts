// A simulated Agent's IPFIX session: its two templates (IPv4 256 and IPv6 257, the Agent's 43 elements, in
// the Node's observation domain) and a message encoder whose sequence numbers count the session's data
// records (RFC 7011 §3.1). A TCP or TLS connection is a session of its own, starting at sequence 0, as an
// Agent's new exporting process does after a reconnect; a UDP socket is one session for its lifetime.
// Messages carry the wall clock as their export time, or, for a test replaying Agents' own time, the
// export time of the records they carry (`agentTime`).
import { agentTemplate } from './antrea/records.js';
import type { AgentNode, AgentRecord } from './antrea/workload.js';
import { u32 } from '../lib/ipfix/message-header.js';
import { MessageEncoder } from '../lib/ipfix/message-encoder.js';
import type { Template } from '../lib/ipfix/types.js';

/** Messages, and how many of the records given each one carries (0 for a template message). */
export interface Encoded {
  readonly messages: Uint8Array[];
  readonly counts: number[];
}

const SEQUENCE_OFFSET = 8;

export interface SessionOptions {
  /** Each message's export time is its records' (exportTime); a template message's, the last records'. */
  readonly agentTime?: boolean;
}

export class AgentIpfixSession {
  readonly #templates: Record<4 | 6, Template>;
  readonly #encoder: MessageEncoder;
  readonly #agentTime: boolean;
  /** With agentTime, the export time of the messages being encoded; undefined (wall clock) before any record. */
  #time: number | undefined;

  constructor(node: AgentNode, maxMessageSize: number, opts: SessionOptions = {}) {
    this.#templates = { 4: agentTemplate(4, node.observationDomainId), 6: agentTemplate(6, node.observationDomainId) };
    this.#agentTime = opts.agentTime === true;
    const exportTime = this.#agentTime ? () => this.#time ?? Math.floor(Date.now() / 1000) : undefined;
    this.#encoder = new MessageEncoder({ observationDomainId: node.observationDomainId, maxMessageSize, ...(exportTime && { exportTime }) });
  }

  /** Both templates in one message, as an Agent sends them when it connects (and, over UDP, periodically). */
  templates(): Encoded {
    this.#encoder.addTemplate(this.#templates[4]);
    this.#encoder.addTemplate(this.#templates[6]);
    return this.#finish();
  }

  /** The records, in order, in as few messages as fit. */
  records(records: readonly AgentRecord[]): Encoded {
    const finished: Uint8Array[] = [];
    for (const r of records) {
      // A message has one export time: records of another time start a new one.
      if (this.#agentTime && r.exportTime !== this.#time) {
        finished.push(...this.#encoder.flush());
        this.#time = r.exportTime;
      }
      this.#encoder.addRecord(this.#templates[r.family], r.values);
    }
    return this.#finish(finished);
  }

  /** `finished`: messages of this call already taken from the encoder. */
  #finish(finished: Uint8Array[] = []): Encoded {
    const messages = [...finished, ...this.#encoder.flush()];
    // A message's sequence number counts the data records before it, so consecutive ones tell how many it holds.
    const counts = messages.map((m, i) => {
      const next = i + 1 < messages.length ? u32(messages[i + 1]!, SEQUENCE_OFFSET) : this.#encoder.sequenceNumber;
      return (next - u32(m, SEQUENCE_OFFSET)) >>> 0;
    });
    return { messages, counts };
  }
}
