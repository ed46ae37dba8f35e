// From a FlowRecord to the values of one export template, in template order, with Antrea's conventions
// for what the record does not have (makeIPFIXRecord): 0 for numbers, "" for strings, 0.0.0.0 or :: for
// addresses, 16 zero bytes for UUIDs, 0xFF (unknown) for flowDirection. Compiled once per template into
// straight-line reads of the scanned record (only the template's fields are read: strings as their
// UTF-8 bytes in one reused Utf8Bytes each, fixed values as views of the log record's bytes), filling one
// reused array: the encoder copies the values out at once.
import { compileFunction } from '../../lib/ipfix/codegen.js';
import { parseIpv4Into, parseIpv6Into } from '../../lib/ipfix/text.js';
import type { EncodableValue, Template } from '../../lib/ipfix/types.js';
import { Utf8Bytes } from '../../lib/ipfix/utf8-bytes.js';
import { FLOW_RECORD_FIELDS } from '../../schemas/flow-record.js';
import { FIELD, type ScannedRecord } from '../../schemas/flow-record-scanner.js';

export type RecordValues = (r: ScannedRecord) => EncodableValue[];

const Z4 = new Uint8Array(4);
const Z6 = new Uint8Array(6);
const Z16 = new Uint8Array(16);
const FLOW_DIRECTION_UNKNOWN = 0xff;

const caches = { 4: new Map<string, Uint8Array>(), 16: new Map<string, Uint8Array>() };

/** The record's exporter address as `size` bytes when it is of that family, else zeros (bounded cache). */
function exporterBytes(r: ScannedRecord, size: 4 | 16): Uint8Array {
  const cache = caches[size];
  const text = r.text(FIELD.exporterAddress!);
  let hit = cache.get(text);
  if (hit === undefined) {
    const out = new Uint8Array(size);
    hit = (size === 4 ? parseIpv4Into(text, out, 0) : parseIpv6Into(text, out, 0)) ? out : size === 4 ? Z4 : Z16;
    if (cache.size >= 4096) cache.clear();
    cache.set(text, hit);
  }
  return hit;
}

const SIZE: Readonly<Record<string, number>> = Object.fromEntries(FLOW_RECORD_FIELDS.flatMap((f) => (f.kind === 'element' && f.encoding === 'fixed' ? [[f.name, f.size]] : [])));

/** A field's index in the scanned record; the generated code reads r.num[i], r.start[i]. */
function at(name: string): number {
  const i = FIELD[name];
  if (i === undefined) throw new Error(`record-values: the template's element ${name} is not a FlowRecord field`);
  return i;
}

/** A number field, or `otherwise` when null. */
const numberOr = (name: string, otherwise: string) => `((x = r.num[${at(name)}]) === x ? x : ${otherwise})`;
/** A string field's bytes in the Utf8Bytes of template position `slot`, or "" (what the encoder writes fastest). */
const text = (name: string, slot: number) => `(r.start[${at(name)}] < 0 || r.length[${at(name)}] === 0 ? '' : u[${slot}].set(r.buf, r.start[${at(name)}], r.length[${at(name)}]))`;
/** A fixed field's bytes (a view of the record's buffer), or `otherwise` when null. */
const fixedOr = (name: string, otherwise: string) => `(r.start[${at(name)}] < 0 ? ${otherwise} : r.buf.subarray(r.start[${at(name)}], r.start[${at(name)}] + ${SIZE[name]!}))`;
const seconds = (name: string) => `((x = r.num[${at(name)}]) === x ? Math.floor(x / 1000) : 0)`;

/** The expression for template position `slot`'s value from the scanned record `r`. Names come from the element registry, not from input. */
function valueExpr(name: string, type: string, slot: number): string {
  switch (name) {
    case 'flowStartSeconds': return seconds('flowStartMilliseconds');
    case 'flowEndSeconds': return seconds('flowEndMilliseconds');
    case 'flowDirection': return numberOr(name, String(FLOW_DIRECTION_UNKNOWN));
    case 'clusterId': return `clusterId !== '' ? clusterId : ${text(name, slot)}`;
    // Proxy mode: the processor fills these from the record's origin; a record without them still has one.
    case 'originalObservationDomainId': return numberOr(name, `r.num0(${at('observationDomainId')})`);
    case 'originalExporterIPv4Address': return fixedOr(name, 'exporterBytes(r, 4)');
    case 'originalExporterIPv6Address': return fixedOr(name, 'exporterBytes(r, 16)');
    default: break;
  }
  switch (type) {
    case 'string': return text(name, slot);
    case 'ipv4Address': return fixedOr(name, 'Z4');
    case 'ipv6Address': case 'octetArray': return fixedOr(name, 'Z16');
    case 'macAddress': return fixedOr(name, 'Z6');
    default: return numberOr(name, '0');
  }
}

/** The values function of `template` (whose elements are FlowRecord fields), for a given clusterId ("" = the record's). */
export function recordValues(template: Template, clusterId: string): RecordValues {
  const lines = template.fields.map((f, i) => {
    if (!/^[A-Za-z]\w*$/.test(f.ie.name)) throw new Error(`record-values: element name ${f.ie.name} is not an identifier`);
    return `v[${i}] = ${valueExpr(f.ie.name, f.ie.type, i)};`;
  });
  const values = new Array<EncodableValue>(template.fields.length).fill(0);
  const u = template.fields.map(() => new Utf8Bytes());
  return compileFunction<RecordValues>(`valuesOfTemplate${template.id}`, ['r'], ['let x = 0;', ...lines, 'return v;'].join('\n'), {
    v: values, u, clusterId, Z4, Z6, Z16, exporterBytes,
  });
}
