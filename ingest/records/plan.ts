// Which field of an IPFIX template fills which FlowRecord field: decided once per template, and shared by the
// builder and the transcoder so that both put every value in the same place.
//
// - An element field takes the first template field with its (pen, id) whose length it can hold: any length for
//   strings, the exact size for addresses, MACs and UUIDs, 1..natural length (reduced-size encoding) for integers.
// - flowStartMilliseconds / flowEndMilliseconds take the most precise time element present: Nanoseconds,
//   Microseconds, Milliseconds, Seconds, then SysUpTime (relative to systemInitTimeMilliseconds) and
//   DeltaMicroseconds (relative to the export time).
// - Every other template field goes to `extras`, in template order: unknown and untyped elements, repeated
//   elements, time elements not chosen, lengths a typed field cannot hold. A field whose typed value may not be
//   representable (a 64-bit value above 2^53, a SysUpTime without a system init time) is "conditional": it goes
//   to extras, and its typed field is null, only for the records where that happens. paddingOctets carry
//   nothing (always zeros) and go nowhere.
// - samplingInterval, when the template lacks it, comes from what the exporter announced (sampling.ts), looked up
//   by the record's samplerId when the template has one.
import { FLOW_RECORD_FIELDS, type FlowRecordField, type TimeField, type TimeSource } from '../../schemas/flow-record.js';
import { type Template, type TemplateField, VARIABLE_LENGTH } from '../../lib/ipfix/types.js';

export interface TimePlan {
  /** Template field index. */
  readonly index: number;
  readonly source: Exclude<TimeSource, 'unknown'>;
}

export interface ExtraPlan {
  readonly index: number;
  readonly conditional: boolean;
}

export interface RecordPlan {
  readonly template: Template;
  /** Per FlowRecord field (same index as `fields`), the template field index that fills it, or -1. */
  readonly sourceIndex: Int32Array;
  readonly time: Readonly<Record<TimeField, TimePlan | undefined>>;
  /** Template field index of systemInitTimeMilliseconds, or -1. */
  readonly systemInitIndex: number;
  /** Template field index of a samplerId (IANA 48, NetFlow v9 FLOW_SAMPLER_ID) of 1 to 4 bytes, or -1. */
  readonly samplerIndex: number;
  readonly extras: readonly ExtraPlan[];
}

const TIME_ELEMENTS: Record<TimeField, readonly [number, Exclude<TimeSource, 'unknown'>][]> = {
  flowStart: [[156, 'nanoseconds'], [154, 'microseconds'], [152, 'milliseconds'], [150, 'seconds'], [22, 'sysUpTime'], [158, 'deltaMicroseconds']],
  flowEnd: [[157, 'nanoseconds'], [155, 'microseconds'], [153, 'milliseconds'], [151, 'seconds'], [21, 'sysUpTime'], [159, 'deltaMicroseconds']],
};
const SYSTEM_INIT_TIME_ID = 160;
const SAMPLER_ID = 48;
const PADDING_OCTETS = 210;

/** Whether a typed field can hold a template field of this length. */
function fits(field: FlowRecordField & { kind: 'element' }, length: number): boolean {
  if (field.encoding === 'string') return true;
  if (length === VARIABLE_LENGTH) return false;
  if (field.encoding === 'fixed') return length === field.size;
  if (field.ie.type === 'dateTimeSeconds' || field.ie.type === 'dateTimeMilliseconds') return length === field.ie.length;
  return length >= 1 && length <= field.ie.length;
}

/** A 64-bit value in 7 or 8 bytes may exceed 2^53. */
export function mayOverflow(field: FlowRecordField & { kind: 'element' }, length: number): boolean {
  return field.encoding === 'long' && length > 6;
}

function timeFits(source: TimePlan['source'], f: TemplateField): boolean {
  if (f.length === VARIABLE_LENGTH) return false;
  return source === 'sysUpTime' || source === 'deltaMicroseconds' ? f.length >= 1 && f.length <= 4 : f.length === f.ie.length;
}

const isIana = (f: TemplateField, id: number) => f.ie.pen === 0 && f.ie.id === id;

export function planRecord(template: Template, fields: readonly FlowRecordField[]): RecordPlan {
  const used = new Uint8Array(template.fields.length);
  const conditional = new Uint8Array(template.fields.length);
  const sourceIndex = new Int32Array(fields.length).fill(-1);
  const byElement = new Map<number, number[]>();
  template.fields.forEach((f, i) => {
    const k = f.ie.pen * 65536 + f.ie.id;
    byElement.set(k, [...(byElement.get(k) ?? []), i]);
  });
  fields.forEach((field, fi) => {
    if (field.kind !== 'element') return;
    const candidates = byElement.get(field.ie.pen * 65536 + field.ie.id) ?? [];
    const i = candidates.find((c) => used[c] === 0 && fits(field, template.fields[c]!.length));
    if (i === undefined) return;
    used[i] = 1;
    sourceIndex[fi] = i;
    if (mayOverflow(field, template.fields[i]!.length)) conditional[i] = 1;
  });
  const planTime = (which: TimeField): TimePlan | undefined => {
    for (const [id, source] of TIME_ELEMENTS[which]) {
      const index = template.fields.findIndex((f, i) => used[i] === 0 && isIana(f, id) && timeFits(source, f));
      if (index < 0) continue;
      used[index] = 1;
      if (source === 'milliseconds' || source === 'sysUpTime') conditional[index] = 1;
      return { index, source };
    }
    return undefined;
  };
  const time = { flowStart: planTime('flowStart'), flowEnd: planTime('flowEnd') };
  const systemInitIndex = template.fields.findIndex((f) => isIana(f, SYSTEM_INIT_TIME_ID) && f.length === 8);
  // v9 exporters send FLOW_SAMPLER_ID in 1, 2 or 4 bytes, beyond the IANA element's 1.
  const samplerIndex = template.fields.findIndex((f) => isIana(f, SAMPLER_ID) && f.length >= 1 && f.length <= 4);
  const extras: ExtraPlan[] = [];
  template.fields.forEach((f, i) => {
    if (isIana(f, PADDING_OCTETS)) return;
    if (used[i] === 0 || conditional[i] === 1) extras.push({ index: i, conditional: used[i] === 1 });
  });
  return { template, sourceIndex, time, systemInitIndex, samplerIndex, extras };
}

const plans = new WeakMap<Template, RecordPlan>();

/** The plan of a template for the FlowRecord schema this process writes (FLOW_RECORD_FIELDS), made once per template. */
export function planFor(template: Template): RecordPlan {
  let plan = plans.get(template);
  if (plan === undefined) {
    plan = planRecord(template, FLOW_RECORD_FIELDS);
    plans.set(template, plan);
  }
  return plan;
}
