// Puts records decoded by flowagg and by tshark into one comparable shape: per record its message
// (frame), template id and fields (pen, id, length, value), values normalised as in flow-view.ts.
// The only tolerance is NTP rounding: flowagg rounds NTP fractions to the nearest µs (dateTimeMicroseconds,
// where RFC 7011 §6.1.9 leaves the low 11 bits meaningless) or ns (dateTimeNanoseconds); tshark truncates
// to whole ns. So µs times are compared in whole µs, ns times to within 1 ns.
import type { NormalizedField } from '../harness/flow-view.js';
import type { TsharkRecord } from '../harness/tshark.js';
import type { DataRecord, FieldValue, InfoElement } from '../../lib/ipfix/index.js';
import { elementByName } from '../../lib/ipfix/registry.js';

export interface ComparableField extends NormalizedField {
  readonly length: number;
}

export interface ComparableRecord {
  readonly frame: number;
  readonly templateId: number;
  readonly fields: readonly ComparableField[];
}

const MICROSECOND_IES = new Set([154, 155]);
const NANOSECOND_IES = new Set([156, 157]);

function normalize(ie: InfoElement, v: FieldValue): bigint | string {
  switch (ie.type) {
    case 'ipv4Address':
    case 'ipv6Address':
    case 'string':
    case 'macAddress':
      return v as string;
    case 'dateTimeSeconds':
      return BigInt(v as number) * 1_000_000_000n;
    case 'dateTimeMilliseconds':
      return BigInt(v as number) * 1_000_000n;
    case 'dateTimeMicroseconds':
    case 'dateTimeNanoseconds':
      return v as bigint;
    default:
      if (typeof v === 'number' || typeof v === 'bigint') return BigInt(v);
      throw new TypeError(`no comparison defined for ${ie.name} (${ie.type})`);
  }
}

export function fromDecoded(frame: number, r: DataRecord): ComparableRecord {
  return {
    frame,
    templateId: r.template.id,
    fields: r.template.fields.map((f, i) => ({ pen: f.ie.pen, id: f.ie.id, length: f.length, value: normalize(f.ie, r.values[i] as FieldValue) })),
  };
}

const NUMERIC = /^(unsigned|signed)\d+$|^dateTime(Micro|Nano)seconds$/;

/**
 * A line of `flowagg decode` (JSON, keys are element names in template order, "@" keys are metadata),
 * with neither frame nor field lengths, which the JSON does not carry: both are set to 0.
 */
export function fromDecodeJson(line: Record<string, unknown>): ComparableRecord {
  const fields = Object.entries(line)
    .filter(([k]) => !k.startsWith('@'))
    .map(([name, json]) => {
      const ie = elementByName(name);
      if (ie === undefined) throw new TypeError(`flowagg decode printed an element name the registry does not know: ${name}`);
      // Integers beyond 2^53 and µs/ns times are printed as decimal strings.
      const value = typeof json === 'string' && NUMERIC.test(ie.type) ? BigInt(json) : (json as FieldValue);
      return { pen: ie.pen, id: ie.id, length: 0, value: normalize(ie, value) };
    });
  return { frame: 0, templateId: Number(line['@templateId']), fields };
}

/** tshark's record, with its NTP times aligned to flowagg's rounding where they agree within it. */
export function fromTshark(r: TsharkRecord, ours: ComparableRecord | undefined): ComparableRecord {
  return {
    frame: r.frame,
    templateId: r.templateId,
    fields: r.fields.map((f, i) => {
      const mine = ours?.fields[i];
      if (typeof f.value !== 'bigint' || mine === undefined || typeof mine.value !== 'bigint' || mine.id !== f.id || mine.pen !== f.pen) return f;
      if (MICROSECOND_IES.has(f.id)) return { ...f, value: ((f.value + 500n) / 1000n) * 1000n };
      const diff = mine.value - f.value;
      if (NANOSECOND_IES.has(f.id) && diff >= -1n && diff <= 1n) return { ...f, value: mine.value };
      return f;
    }),
  };
}
