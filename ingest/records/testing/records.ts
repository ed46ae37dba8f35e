// Builders for tests and benchmarks of ingest/records: templates by element name, IPFIX data records from values,
// and the reference path run on the same bytes as the transcoder. Real exporters' templates (Antrea agent,
// softflowd) are in lib/ipfix/testing/templates.ts. Production code never imports this file.
import { writeValue } from '../../../lib/ipfix/field-codec.js';
import { recordDecoder } from '../../../lib/ipfix/record-decoder.js';
import { recordLayout } from '../../../lib/ipfix/record-layout.js';
import { type FieldValue, type Template, type TemplateField, VARIABLE_LENGTH } from '../../../lib/ipfix/types.js';
import type { AvroWriter } from '../../../schemas/avro.js';
import type { FlowRecord, RecordOrigin } from '../../../schemas/flow-record.js';
import { element } from '../../../lib/ipfix/registry.js';
import { buildFlowRecord, encodeFlowRecord, type EncodedFlowRecord } from '../build.js';
import { encodeOrigin, type MessageContext } from '../context.js';

/** Fields by element name, optionally with a template length other than the element's natural one. */
export type FieldSpec = string | readonly [name: string, length: number];

export function templateOf(id: number, specs: readonly FieldSpec[], observationDomainId = 1): Template {
  const fields = specs.map((spec): TemplateField => {
    const [name, length] = typeof spec === 'string' ? [spec, undefined] : spec;
    const ie = element(name);
    return { ie, length: length ?? ie.length, scope: false };
  });
  return { id, observationDomainId, fields, scopeFieldCount: 0 };
}

/** The IPFIX bytes of one data record (RFC 7011 §3.4.3; variable-length fields with their length prefix). */
export function encodeRecord(template: Template, values: readonly (FieldValue | Uint8Array)[]): Uint8Array {
  const parts: Uint8Array[] = template.fields.map((f, i) => {
    const v = values[i]!;
    if (f.length !== VARIABLE_LENGTH) {
      if (v instanceof Uint8Array && f.ie.type !== 'octetArray') return v; // raw bytes as given
      const b = new Uint8Array(f.length);
      writeValue(f.ie.type, b, 0, f.length, v);
      return b;
    }
    const content = v instanceof Uint8Array ? v : Buffer.from(String(v), 'utf8');
    const prefix = content.length < 255 ? [content.length] : [255, content.length >> 8, content.length & 0xff];
    return Buffer.concat([Buffer.from(prefix), content]);
  });
  return Buffer.concat(parts);
}

/** The facts of a message for `template`'s data set from `origin`. */
export function contextFor(origin: RecordOrigin, template: Pick<Template, 'id' | 'observationDomainId'>, facts: MessageFacts): MessageContext {
  return { upTime: undefined, sampling: undefined, ...facts, origin: encodeOrigin(origin), observationDomainId: template.observationDomainId, templateId: template.id };
}

export type MessageFacts = Pick<MessageContext, 'exportTime' | 'sequenceNumber' | 'receiveTime' | 'systemInitTime'> & Partial<Pick<MessageContext, 'upTime' | 'sampling'>>;

/** The reference path on IPFIX bytes: decode with the codec, build the FlowRecord, encode with avsc. */
export function referenceEncode(template: Template, b: Uint8Array, msg: MessageContext, writer: AvroWriter<FlowRecord>): EncodedFlowRecord & { record: FlowRecord } {
  const starts = new Int32Array(template.fields.length);
  const lengths = new Int32Array(template.fields.length);
  if (recordLayout(template).scanRecord(b, 0, b.length, starts, lengths) < 0) throw new Error('record truncated');
  const decoded = recordDecoder(template).decode(b, 0, b.length, { store: undefined, observationDomainId: template.observationDomainId, depth: 0, maxDepth: 8, next: 0 });
  if (decoded === undefined) throw new Error('record truncated');
  const record = buildFlowRecord(decoded, (i) => b.subarray(starts[i], starts[i]! + lengths[i]!), msg);
  return { ...encodeFlowRecord(record, writer), record };
}
