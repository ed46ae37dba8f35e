// The FlowRecord schema (flow-record.avsc) and what code needs to know about it: the avsc type, the framed
// writer and reader, and, for each field, where its value comes from. The .avsc file is the single source:
// a field with an `"ipfix": {"pen", "id"}` attribute holds that information element, `"ipfix": {"time": ...}`
// the normalised flow start or end, and the other fields are the record's provenance or, for fields ingest
// does not know (added later for the processor), their default. Nothing else lists the fields.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import avro from 'avsc';
import { FlowaggError } from '../lib/errors.js';
import type { AbstractType, InfoElement } from '../lib/ipfix/types.js';
import { type AvroFraming, AvroReader, AvroWriter } from './avro.js';
import { SCHEMA_BAD_MAPPING } from './errors.js';
import { findElement } from '../lib/ipfix/registry.js';

export const FLOW_RECORD_SCHEMA: unknown = JSON.parse(readFileSync(new URL('./flow-record.avsc', import.meta.url), 'utf8'));

export type Transport = 'unknown' | 'udp' | 'tcp' | 'tls' | 'file' | 'grpc' | 'netflow_v9' | 'netflow_v5';
export type TimeSource = 'unknown' | 'seconds' | 'milliseconds' | 'microseconds' | 'nanoseconds' | 'deltaMicroseconds' | 'sysUpTime';
export type TimeField = 'flowStart' | 'flowEnd';

/** Where a record came from: constant for a transport session. */
export interface RecordOrigin {
  readonly exporterAddress: string;
  readonly exporterPort: number;
  readonly transport: Transport;
}

export interface ExtraField {
  readonly pen: number;
  readonly id: number;
  readonly value: Buffer;
}

/** A decoded FlowRecord. Element fields are named after their IE; absent ones are null. */
export interface FlowRecord extends RecordOrigin {
  readonly observationDomainId: number;
  /** ms since the Unix epoch (the header's whole seconds × 1000). */
  readonly exportTime: number;
  readonly sequenceNumber: number;
  readonly templateId: number;
  readonly receiveTime: number;
  readonly flowStartMilliseconds: number | null;
  readonly flowStartSource: TimeSource | null;
  readonly flowEndMilliseconds: number | null;
  readonly flowEndSource: TimeSource | null;
  readonly sourceIPv4Address: Buffer | null;
  readonly destinationIPv4Address: Buffer | null;
  readonly sourceIPv6Address: Buffer | null;
  readonly destinationIPv6Address: Buffer | null;
  readonly sourceTransportPort: number | null;
  readonly destinationTransportPort: number | null;
  readonly protocolIdentifier: number | null;
  readonly flowType: number | null;
  readonly destinationPodName: string | null;
  readonly proxySnatIPv4: Buffer | null;
  readonly proxySnatIPv6: Buffer | null;
  readonly proxySnatPort: number | null;
  readonly extras: readonly ExtraField[];
  /** Every other element field (see flow-record.avsc): number, string, Buffer or null. */
  readonly [field: string]: unknown;
}

export type SourceFieldName = 'exporterAddress' | 'exporterPort' | 'transport' | 'observationDomainId' | 'exportTime' | 'sequenceNumber' | 'templateId' | 'receiveTime';
const SOURCE_FIELDS: ReadonlySet<string> = new Set<SourceFieldName>(['exporterAddress', 'exporterPort', 'transport', 'observationDomainId', 'exportTime', 'sequenceNumber', 'templateId', 'receiveTime']);

/** How an element field's IPFIX value becomes its Avro value. */
export type ElementEncoding = 'int' | 'long' | 'string' | 'fixed';

export type FlowRecordField =
  | { readonly kind: 'source'; readonly name: SourceFieldName }
  | { readonly kind: 'element'; readonly name: string; readonly ie: InfoElement; readonly encoding: ElementEncoding; readonly size: number }
  | { readonly kind: 'time'; readonly name: string; readonly which: TimeField }
  | { readonly kind: 'timeSource'; readonly name: string; readonly which: TimeField }
  | { readonly kind: 'extras'; readonly name: string }
  | { readonly kind: 'default'; readonly name: string; readonly defaultBytes: Buffer };

/** The Avro type each abstract type of an element field must have (the union's non-null branch). */
const ENCODING_OF: Partial<Record<AbstractType, ElementEncoding>> = {
  unsigned8: 'int', unsigned16: 'int', signed8: 'int', signed16: 'int', signed32: 'int',
  unsigned32: 'long', unsigned64: 'long', signed64: 'long', dateTimeSeconds: 'long', dateTimeMilliseconds: 'long',
  string: 'string', ipv4Address: 'fixed', ipv6Address: 'fixed', macAddress: 'fixed', octetArray: 'fixed',
};

interface FieldJson {
  name: string;
  type: unknown;
  ipfix?: { pen?: number; id?: number; time?: string };
}

function mappingError(field: string, why: string): FlowaggError {
  return new FlowaggError(SCHEMA_BAD_MAPPING, `FlowRecord field ${field}: ${why}`, { context: { field } });
}

/**
 * Reads the field list of a FlowRecord schema and checks it against the IE registry. `type` must be the avsc
 * type of `schema` (used to encode the defaults of fields ingest does not fill).
 */
export function describeFlowRecordFields(schema: unknown, type: avro.Type): FlowRecordField[] {
  const fields = (schema as { fields: FieldJson[] }).fields;
  const avscFields = (type as unknown as { fields: { name: string; type: avro.Type; defaultValue(): unknown }[] }).fields;
  const out: FlowRecordField[] = [];
  fields.forEach((f, i) => {
    const branch = Array.isArray(f.type) && f.type.length === 2 && f.type[0] === 'null' ? avscFields[i]!.type : undefined;
    const inner = branch === undefined ? undefined : (branch as unknown as { types: avro.Type[] }).types[1]!;
    if (f.ipfix?.time !== undefined) {
      if (f.ipfix.time !== 'flowStart' && f.ipfix.time !== 'flowEnd') throw mappingError(f.name, `unknown time ${f.ipfix.time}`);
      if (inner?.typeName !== 'long') throw mappingError(f.name, 'a normalised time must be ["null", long]');
      out.push({ kind: 'time', name: f.name, which: f.ipfix.time });
    } else if (f.ipfix !== undefined) {
      const ie = findElement(f.ipfix.pen ?? -1, f.ipfix.id ?? -1);
      if (ie === undefined) throw mappingError(f.name, `no information element ${f.ipfix.pen}/${f.ipfix.id} in the registry`);
      if (ie.name !== f.name) throw mappingError(f.name, `element ${ie.pen}/${ie.id} is named ${ie.name}`);
      const encoding = ENCODING_OF[ie.type];
      const size = ie.type === 'octetArray' ? ie.length : (inner as unknown as { size?: number } | undefined)?.size ?? 0;
      const expected = encoding === 'fixed' ? `fixed(${size})` : encoding;
      const actual = inner?.typeName === 'fixed' ? `fixed(${(inner as unknown as { size: number }).size})` : inner?.typeName;
      if (encoding === undefined || actual !== expected || (encoding === 'fixed' && size !== ie.length)) {
        throw mappingError(f.name, `a ${ie.type} element (length ${ie.length}) needs ["null", ${encoding ?? '?'}${encoding === 'fixed' ? `(${ie.length})` : ''}], the schema has ${String(actual)}`);
      }
      out.push({ kind: 'element', name: f.name, ie, encoding, size });
    } else if (SOURCE_FIELDS.has(f.name)) {
      out.push({ kind: 'source', name: f.name as SourceFieldName });
    } else if (f.name === 'flowStartSource' || f.name === 'flowEndSource') {
      out.push({ kind: 'timeSource', name: f.name, which: f.name === 'flowStartSource' ? 'flowStart' : 'flowEnd' });
    } else if (f.name === 'extras') {
      if (i !== fields.length - 1) throw mappingError(f.name, 'extras must stay the last field (values that overflow typed fields are appended to it)');
      out.push({ kind: 'extras', name: f.name });
    } else {
      const field = avscFields[i]!;
      out.push({ kind: 'default', name: f.name, defaultBytes: field.type.toBuffer(field.defaultValue()) });
    }
  });
  return out;
}

export const FLOW_RECORD_TYPE = avro.Type.forSchema(FLOW_RECORD_SCHEMA as avro.Schema);

const TRANSPORT_SYMBOLS = (FLOW_RECORD_SCHEMA as { fields: { name: string; type: { symbols?: string[] } }[] }).fields.find((f) => f.name === 'transport')!.type.symbols!;

/** The index of a Transport symbol in the enum: what a scanner's num[] and a record's provenance hold (enums only grow, so every writer agrees). */
export function transportIndex(transport: Transport): number {
  return TRANSPORT_SYMBOLS.indexOf(transport);
}
export const FLOW_RECORD_FIELDS: readonly FlowRecordField[] = describeFlowRecordFields(FLOW_RECORD_SCHEMA, FLOW_RECORD_TYPE);

export function flowRecordWriter(framing?: AvroFraming): AvroWriter<FlowRecord> {
  return new AvroWriter<FlowRecord>(FLOW_RECORD_TYPE, FLOW_RECORD_SCHEMA, framing);
}

/** Earlier versions of flow-record.avsc, kept so that records already in the log stay readable (docs/schemas.md). */
export const FLOW_RECORD_HISTORY = new URL('./history/', import.meta.url);

/**
 * A reader of FlowRecords written with this schema or any earlier version in `history` (files
 * flow-record-v<N>.avsc); more writer schemas can be registered on the reader.
 */
export function flowRecordReader(confluentId?: number, history: URL = FLOW_RECORD_HISTORY): AvroReader<FlowRecord> {
  const reader = new AvroReader<FlowRecord>(FLOW_RECORD_TYPE, FLOW_RECORD_SCHEMA, confluentId);
  const files = existsSync(history) ? readdirSync(history).filter((f) => /^flow-record-v\d+\.avsc$/.test(f)) : [];
  for (const f of files) reader.register(JSON.parse(readFileSync(new URL(f, history), 'utf8')));
  return reader;
}
