// The reference FlowRecord builder: decoded values (the IPFIX codec's DataRecord) → a FlowRecord object → Avro
// through avsc. Slow (one object and a string per field) but obviously right; the transcoder (transcode.ts) must
// produce the same bytes, which its property test checks. Also the path for records that do not come from IPFIX
// bytes (tests, tools).
//
// `extras` hold the exporter's bytes, not a re-encoding of decoded values (which would lose NTP fractions and list
// layouts), so the builder takes the record's raw field bytes too.
import { parseIpv4Into, parseIpv6Into, parseMacInto } from '../../lib/ipfix/text.js';
import type { DataRecord, FieldValue } from '../../lib/ipfix/types.js';
import type { AvroWriter } from '../../schemas/avro.js';
import {
  type ExtraField, FLOW_RECORD_FIELDS, type FlowRecord, type FlowRecordField, type SourceFieldName, type TimeField,
} from '../../schemas/flow-record.js';
import { MAX_LONG } from '../../schemas/avro-binary.js';
import type { MessageContext } from './context.js';
import { flowKeyOfRecord } from '../../schemas/flow-key.js';
import { upTimeOf } from './ipfix-read.js';
import { planFor, type RecordPlan, type TimePlan } from './plan.js';

/** The raw bytes of template field `index` of the record. */
export type RawField = (index: number) => Uint8Array;

type Element = FlowRecordField & { kind: 'element' };

/** Every field, so that all records share one shape instead of growing 127 properties one by one. */
const EMPTY_RECORD: Readonly<Record<string, unknown>> = Object.fromEntries(FLOW_RECORD_FIELDS.map((f) => [f.name, f.kind === 'default' ? undefined : null]));

/** An element's typed value, or undefined when the typed field cannot hold it (then it goes to extras). */
function typedValue(field: Element, v: FieldValue): number | string | Buffer | undefined {
  switch (field.encoding) {
    case 'int':
    case 'long':
      return isLong(v) ? v : undefined;
    case 'string':
      return v as string;
    case 'fixed': {
      if (v instanceof Uint8Array) return Buffer.from(v);
      const out = Buffer.alloc(field.size);
      const parse = field.ie.type === 'ipv4Address' ? parseIpv4Into : field.ie.type === 'ipv6Address' ? parseIpv6Into : parseMacInto;
      if (!parse(v as string, out, 0)) throw new Error(`${field.name}: cannot parse ${String(v)}`);
      return out;
    }
  }
}

const isLong = (v: unknown): v is number => typeof v === 'number' && Math.abs(v) <= MAX_LONG;

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

/** Milliseconds since the Unix epoch of a time element, or undefined when it cannot be known or held. */
function timeValue(t: TimePlan, v: FieldValue, msg: MessageContext, systemInitTime: number | undefined): number | undefined {
  const ms = timeMilliseconds(t, v, msg, systemInitTime);
  return isLong(ms) ? ms : undefined;
}

function timeMilliseconds(t: TimePlan, v: FieldValue, msg: MessageContext, systemInitTime: number | undefined): number | undefined {
  const exportTime = msg.exportTime;
  switch (t.source) {
    case 'seconds':
      return (v as number) * 1000;
    case 'milliseconds':
      return typeof v === 'number' ? v : undefined;
    case 'microseconds':
    case 'nanoseconds':
      return Number(floorDiv(v as bigint, 1_000_000n));
    case 'sysUpTime':
      return systemInitTime === undefined ? undefined : systemInitTime + upTimeOf(v as number, msg.upTime);
    case 'deltaMicroseconds':
      return exportTime * 1000 - Math.ceil((v as number) / 1000);
  }
}

/** The FlowRecord field samplingInterval, which the exporter's announcements fill when the record lacks it. */
export const SAMPLING_FIELD = FLOW_RECORD_FIELDS.findIndex((f) => f.name === 'samplingInterval');

/** The sampling interval announced for the record's sampler (or domain), or null. */
function announcedSampling(raw: RawField, plan: RecordPlan, msg: MessageContext): number | null {
  if (msg.sampling === undefined) return null;
  const sampler = plan.samplerIndex < 0 ? -1 : raw(plan.samplerIndex).reduce((n, b) => n * 256 + b, 0);
  const interval = msg.sampling.intervalOf(sampler);
  return interval >= 1 ? interval : null;
}

/** The FlowRecord of a decoded data record; provenance, domain and template id come from `msg`. */
export function buildFlowRecord(record: DataRecord, raw: RawField, msg: MessageContext, plan: RecordPlan = planFor(record.template)): FlowRecord {
  const { template, values } = record;
  const overflowed = new Set<number>();
  const out: Record<string, unknown> = { ...EMPTY_RECORD };
  const recordInit = plan.systemInitIndex >= 0 ? values[plan.systemInitIndex] : undefined;
  const init = isLong(recordInit) ? recordInit : msg.systemInitTime;
  const source: Record<SourceFieldName, unknown> = {
    exporterAddress: msg.origin.exporterAddress, exporterPort: msg.origin.exporterPort, transport: msg.origin.transport,
    observationDomainId: msg.observationDomainId, exportTime: msg.exportTime * 1000, sequenceNumber: msg.sequenceNumber,
    templateId: msg.templateId, receiveTime: msg.receiveTime,
  };
  const times = {} as Record<TimeField, number | undefined>;
  for (const which of ['flowStart', 'flowEnd'] as const) {
    const t = plan.time[which];
    times[which] = t === undefined ? undefined : timeValue(t, values[t.index]!, msg, init);
    if (t !== undefined && times[which] === undefined) overflowed.add(t.index);
  }
  FLOW_RECORD_FIELDS.forEach((field, fi) => {
    switch (field.kind) {
      case 'source':
        out[field.name] = source[field.name];
        return;
      case 'element': {
        const i = plan.sourceIndex[fi]!;
        if (i < 0 && fi === SAMPLING_FIELD) {
          out[field.name] = announcedSampling(raw, plan, msg);
          return;
        }
        const v = i < 0 ? undefined : typedValue(field, values[i]!);
        if (i >= 0 && v === undefined) overflowed.add(i);
        out[field.name] = v ?? null;
        return;
      }
      case 'time':
        out[field.name] = times[field.which] ?? null;
        return;
      case 'timeSource':
        out[field.name] = times[field.which] === undefined ? null : plan.time[field.which]!.source;
        return;
      case 'extras':
        out[field.name] = plan.extras
          .filter((e) => !e.conditional || overflowed.has(e.index))
          .map((e): ExtraField => ({ pen: template.fields[e.index]!.ie.pen, id: template.fields[e.index]!.ie.id, value: Buffer.from(raw(e.index)) }));
        return;
      case 'default':
        return; // left undefined: avsc writes the schema's default
    }
  });
  return out as FlowRecord;
}

export interface EncodedFlowRecord {
  readonly key: Buffer;
  readonly value: Buffer;
}

/** The reference encoding: the Kafka key and the framed Avro value of one record. */
export function encodeFlowRecord(record: FlowRecord, writer: AvroWriter<FlowRecord>): EncodedFlowRecord {
  return { key: flowKeyOfRecord(record), value: writer.encode(record) };
}
