// The synthetic agents' records (workload.ts) in the two forms flowagg consumes: IPFIX data records of
// the Antrea agent template, and the FlowRecords ingest would write for them to flows.raw (through
// ingest's own transcoder, so they are byte for byte what ingest writes).
import { recordEncoder } from '../../lib/ipfix/record-encoder.js';
import type { Template } from '../../lib/ipfix/types.js';
import { element } from '../../lib/ipfix/registry.js';
import { type MessageContext, sessionContext } from '../../ingest/records/context.js';
import { RecordBuffer } from '../../schemas/record-buffer.js';
import { compileTranscoder, type Transcoder } from '../../ingest/records/transcode.js';
import { agentFieldNames, type AgentNode, type AgentRecord } from './workload.js';

/** The agent's template: id 256 for IPv4, 257 for IPv6, in the Node's observation domain. */
export function agentTemplate(family: 4 | 6, observationDomainId: number): Template {
  const fields = agentFieldNames(family).map((name) => {
    const ie = element(name);
    return { ie, length: ie.length, scope: false };
  });
  return Object.freeze({ id: family === 4 ? 256 : 257, observationDomainId, fields: Object.freeze(fields), scopeFieldCount: 0 });
}

interface NodeCodec {
  readonly template: Record<4 | 6, Template>;
  readonly transcoder: Record<4 | 6, Transcoder>;
  readonly context: MessageContext;
  sequence: number;
}

/** Turns agent records into flows.raw records (key and framed Avro value), as ingest would over TCP. */
export class FlowRecordEncoder {
  private readonly nodes = new Map<number, NodeCodec>();
  private readonly ipfix = new Uint8Array(4096);
  private readonly out = new RecordBuffer();

  private codec(node: AgentNode): NodeCodec {
    let c = this.nodes.get(node.index);
    if (c === undefined) {
      const origin = { exporterAddress: node.address, exporterPort: 40_000 + node.index, transport: 'tcp' } as const;
      const template = { 4: agentTemplate(4, node.observationDomainId), 6: agentTemplate(6, node.observationDomainId) };
      c = {
        template,
        transcoder: { 4: compileTranscoder(template[4]), 6: compileTranscoder(template[6]) },
        context: sessionContext(origin),
        sequence: 0,
      };
      this.nodes.set(node.index, c);
    }
    return c;
  }

  /** The IPFIX bytes of the record's data record (a view, valid until the next call). */
  ipfixRecord(r: AgentRecord): Uint8Array {
    const end = recordEncoder(this.codec(r.node).template[r.family])(this.ipfix, 0, this.ipfix.length, r.values);
    return this.ipfix.subarray(0, end);
  }

  /**
   * The record as ingest writes it to flows.raw: its flow key and framed Avro FlowRecord (views that stay
   * valid). Received at its export time unless `receiveTimeMs` says otherwise.
   */
  flowRecord(r: AgentRecord, receiveTimeMs = r.exportTime * 1000): { key: Buffer; value: Buffer } {
    const c = this.codec(r.node);
    const bytes = this.ipfixRecord(r);
    c.context.exportTime = r.exportTime;
    c.context.sequenceNumber = c.sequence++;
    c.context.receiveTime = receiveTimeMs;
    c.context.observationDomainId = r.node.observationDomainId;
    c.context.templateId = c.template[r.family].id;
    c.transcoder[r.family].transcode(bytes, 0, bytes.length, c.context, this.out);
    return { key: this.out.key(), value: this.out.value() };
  }
}
