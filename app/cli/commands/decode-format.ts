// How `flowagg decode` prints a data record.
// JSON (one object per line): keys are element names from the registry (`sourceIPv4Address`,
// `reverseOctetDeltaCount`, `sourcePodName`; unknown elements `e<pen>.<id>`); an element repeated in a
// template becomes an array of its values in order. Values: integers as numbers, as decimal strings
// above 2^53 (dateTimeMicro/Nanoseconds are nanoseconds since the epoch, so always strings); addresses
// as text; octetArray as lower-case hex; floats that JSON cannot hold as "NaN"/"Infinity"/"-Infinity";
// RFC 6313 lists as nested objects. Metadata keys start with "@": @exporter (address:port, pcap only),
// @observationDomainId, @templateId, @exportTime, @sequenceNumber, @offset (byte offset of the message
// or of the packet in the file); NetFlow records also have @version (9 or 5) and @sysUpTime (the packet's,
// in ms, to which their flowStart/EndSysUpTime are relative), and their @observationDomainId is v9's Source
// ID or v5's engine type × 256 + engine id.
// Text: a readable dump in the manner of ipfixDump.
import { fieldsToJson, semanticName, valueToJson } from '../../../lib/ipfix/json.js';
import type { AbstractType, DataRecord, FieldValue, MessageHeader, Template } from '../../../lib/ipfix/types.js';

export interface RecordMeta {
  readonly exporter?: string;
  readonly header: MessageHeader;
  readonly offset?: number;
}

/** The metadata keys that open the line of every record of one template in a message. */
export function jsonLinePrefix(templateId: number, meta: RecordMeta): string {
  const exporter = meta.exporter === undefined ? '' : `"@exporter":${JSON.stringify(meta.exporter)},`;
  const offset = meta.offset === undefined ? '' : `,"@offset":${meta.offset}`;
  const h = meta.header;
  const netflow = 'sysUpTime' in h ? `"@version":${h.version},"@sysUpTime":${String(h.sysUpTime)},` : '';
  return `{${exporter}${netflow}"@observationDomainId":${h.observationDomainId},"@templateId":${templateId},"@exportTime":${h.exportTime},"@sequenceNumber":${h.sequenceNumber}${offset}`;
}

/**
 * One data record as a JSON object on one line (no newline), built as an object and stringified: the
 * reference json-lines.ts's fast writer is tested against, and its path for templates that repeat an
 * element. `prefix` is jsonLinePrefix's for the record's template.
 */
export function jsonLine(r: DataRecord, prefix: string): string {
  const fields = JSON.stringify(fieldsToJson(r));
  return fields === '{}' ? `${prefix}}` : `${prefix},${fields.slice(1)}`;
}

/** dateTime* values as ISO 8601 (UTC), to the precision of their type. */
function timeText(type: AbstractType, v: FieldValue): string | undefined {
  const iso = (ms: number, extra = '') => {
    const d = new Date(ms);
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString().replace('Z', `${extra}Z`);
  };
  if (type === 'dateTimeSeconds' && typeof v === 'number') return iso(v * 1000)?.replace('.000Z', 'Z');
  if (type === 'dateTimeMilliseconds' && typeof v === 'number') return iso(v);
  if ((type === 'dateTimeMicroseconds' || type === 'dateTimeNanoseconds') && typeof v === 'bigint') {
    const ns = ((v % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n;
    const digits = ns.toString().padStart(9, '0');
    return iso(Number((v - ns) / 1_000_000n), type === 'dateTimeMicroseconds' ? digits.slice(3, 6) : digits.slice(3))?.replace(/\.(\d{3})(\d*)Z$/, '.$1$2Z');
  }
  return undefined;
}

function textValue(v: FieldValue, indent: string, type?: AbstractType): string {
  const time = type === undefined ? undefined : timeText(type, v);
  if (time !== undefined) return time;
  if (typeof v === 'object' && !(v instanceof Uint8Array)) {
    const inner = `${indent}    `;
    if (v.kind === 'basicList') {
      return [`basicList ${semanticName(v.semantic)} of ${v.ie.name}, ${v.values.length} values`, ...v.values.map((x, i) => `${inner}[${i}] ${textValue(x, inner)}`)].join('\n');
    }
    const entries = v.kind === 'subTemplateList' ? [v] : v.entries;
    const lines = [`${v.kind} ${semanticName(v.semantic)}`];
    for (const e of entries) {
      lines.push(`${inner}template ${e.templateId}: ${e.records.length} records${e.undecoded ? ` (template unknown, ${e.undecoded.length} bytes undecoded)` : ''}`);
      for (const rec of e.records) lines.push(recordToText(rec, `${inner}  `));
    }
    return lines.join('\n');
  }
  return typeof v === 'string' ? v : String(valueToJson(v));
}

export function recordToText(r: DataRecord, indent = ''): string {
  const lines = [`${indent}--- data record: template ${r.template.id}, ${r.values.length} fields ---`];
  const width = Math.max(...r.template.fields.map((f) => f.ie.name.length), 8);
  r.template.fields.forEach((f, i) => {
    const id = f.ie.pen === 0 ? `(${f.ie.id})` : `(${f.ie.pen}/${f.ie.id})`;
    lines.push(`${indent}  ${id.padEnd(14)}${f.scope ? '(S) ' : '    '}${f.ie.name.padStart(width)} : ${textValue(r.values[i] as FieldValue, `${indent}  `, f.ie.type)}`);
  });
  return lines.join('\n');
}

export function templateToText(t: Template): string {
  const kind = t.scopeFieldCount > 0 ? `options template, ${t.scopeFieldCount} scope fields` : 'template';
  return [
    `--- ${kind} ${t.id}: ${t.fields.length} fields ---`,
    ...t.fields.map((f) => `  ${(f.ie.pen === 0 ? `(${f.ie.id})` : `(${f.ie.pen}/${f.ie.id})`).padEnd(14)}${f.scope ? '(S) ' : '    '}${f.ie.type.padEnd(22)} len ${String(f.length === 65535 ? 'var' : f.length).padStart(5)}  ${f.ie.name}`),
  ].join('\n');
}

export function headerToText(h: MessageHeader, meta: { exporter?: string; offset: number }): string {
  const time = new Date(h.exportTime * 1000).toISOString().replace('.000Z', 'Z');
  const what = 'sysUpTime' in h ? `NetFlow v${h.version} packet` : 'message';
  const domain = 'sysUpTime' in h ? `${h.version === 9 ? 'source id' : 'engine'} ${h.observationDomainId}, sysUpTime ${String(h.sysUpTime)} ms` : `domain ${h.observationDomainId}`;
  return `=== ${what} at byte ${meta.offset}${meta.exporter ? ` from ${meta.exporter}` : ''}: ${h.length} bytes, ${domain}, sequence ${h.sequenceNumber}, export time ${time} ===`;
}
