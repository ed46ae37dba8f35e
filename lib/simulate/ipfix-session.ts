// A simulated Agent's IPFIX session: its two templates (IPv4 256 and IPv6 257, the Agent's 43 elements, in
// the Node's observation domain) and a message encoder whose sequence numbers count the session's data
// records (RFC 7011 §3.1). A TCP or TLS connection is a session of its own, starting at sequence 0, as an
// Agent's new exporting process does after a reconnect; a UDP socket is one session for its lifetime.
import { agentTemplate } from '../antrea/records.js';
import { type AgentNode, type AgentRecord } from '../antrea/workload.js';
import { u32 } from '../ipfix/message-header.js';
import { MessageEncoder } from '../ipfix/message-encoder.js';
import { type Template } from '../ipfix/types.js';

/** Messages, and how many of the records given each one carries (0 for a template message). */
export interface Encoded {
  readonly messages: Uint8Array[];
  readonly counts: number[];
}

const SEQUENCE_OFFSET = 8;

export class AgentIpfixSession {
  readonly #templates: Record<4 | 6, Template>;
  readonly #encoder: MessageEncoder;

  constructor(node: AgentNode, maxMessageSize: number) {
    this.#templates = { 4: agentTemplate(4, node.observationDomainId), 6: agentTemplate(6, node.observationDomainId) };
    this.#encoder = new MessageEncoder({ observationDomainId: node.observationDomainId, maxMessageSize });
  }

  /** Both templates in one message, as an Agent sends them when it connects (and, over UDP, periodically). */
  templates(): Encoded {
    this.#encoder.addTemplate(this.#templates[4]);
    this.#encoder.addTemplate(this.#templates[6]);
    return this.#finish();
  }

  /** The records, in order, in as few messages as fit. */
  records(records: readonly AgentRecord[]): Encoded {
    for (const r of records) this.#encoder.addRecord(this.#templates[r.family], r.values);
    return this.#finish();
  }

  #finish(): Encoded {
    const messages = this.#encoder.flush();
    // A message's sequence number counts the data records before it, so consecutive ones tell how many it holds.
    const counts = messages.map((m, i) => {
      const next = i + 1 < messages.length ? u32(messages[i + 1]!, SEQUENCE_OFFSET) : this.#encoder.sequenceNumber;
      return (next - u32(m, SEQUENCE_OFFSET)) >>> 0;
    });
    return { messages, counts };
  }
}
