// recordFormat: JSON. Each record becomes one line `{"ipfix": {<element>: value, ...}, "@timestamp": "<RFC 3339>"}`
// with the elements and values of the IPFIX template it would have gone out with, so the two formats
// carry the same data. Addresses are text, UUIDs are text ("8-4-4-4-12"; Antrea's JSON mode fails on
// them instead), numbers are numbers.
import { formatIpv4, formatIpv6, formatMac } from '../../lib/ipfix/text.js';
import type { EncodableValue } from '../../lib/ipfix/types.js';
import { Utf8Bytes } from '../../lib/ipfix/utf8-bytes.js';
import type { ScannedRecord } from '../../schemas/flow-record-scanner.js';
import type { ExportTemplate } from './templates.js';

function uuidText(b: Uint8Array): string {
  const h = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function jsonValue(type: string, v: EncodableValue): unknown {
  if (v instanceof Utf8Bytes) return v.toString();
  if (v instanceof Uint8Array) {
    if (type === 'ipv4Address') return formatIpv4(v, 0);
    if (type === 'ipv6Address') return formatIpv6(v, 0);
    if (type === 'macAddress') return formatMac(v, 0);
    return v.length === 16 ? uuidText(v) : Buffer.from(v).toString('hex');
  }
  return typeof v === 'bigint' ? Number(v) : v;
}

/** The JSON line of one record (newline included). */
export function jsonLine(t: ExportTemplate, r: ScannedRecord, now: Date): string {
  const values = t.values(r);
  const ipfix: Record<string, unknown> = {};
  t.template.fields.forEach((f, i) => (ipfix[f.ie.name] = jsonValue(f.ie.type, values[i]!)));
  return `${JSON.stringify({ ipfix, '@timestamp': now.toISOString() })}\n`;
}
