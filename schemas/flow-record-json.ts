// A FlowRecord as one JSON object, the way `flowagg decode` prints an IPFIX data record, so that what
// `flowagg pipeline`, the flow-log and the IPFIX JSON exporters print reads like decode's output:
// - keys are information element names (`sourceIPv4Address`, `reverseOctetDeltaCount`, `sourcePodName`),
//   absent (null) fields are left out;
// - the flow times under the element the exporter used: `flowStartSeconds` (whole seconds) when it sent
//   seconds, else `flowStartMilliseconds` (and the same for flowEnd);
// - addresses as text, MAC addresses as `00:0c:29:70:86:09`, 16-byte UUIDs as UUID text;
// - integers as numbers (a typed FlowRecord long is at most 2^53 − 2, so always a safe integer);
// - `extras` under their element's name with decode's value, or `e<pen>.<id>` with the bytes in hex for
//   elements nobody registered (and for RFC 6313 lists, kept as their encoded bytes); an element present
//   twice (a typed field and an extra, or two extras) gives an array of its values in order;
// - provenance as `@`-keys, like decode's metadata: `@exporter` (address:port), `@transport`,
//   `@observationDomainId`, `@templateId`, `@exportTime` (seconds, as in the IPFIX header),
//   `@sequenceNumber`, `@receiveTime` (milliseconds).
import { readValue, validFieldLength } from '../lib/ipfix/field-codec.js';
import { type Json, valueToJson } from '../lib/ipfix/json.js';
import { formatIpv4, formatIpv6, formatMac, toHex } from '../lib/ipfix/text.js';
import { FLOW_RECORD_FIELDS, type FlowRecord, type FlowRecordField } from './flow-record.js';
import { findElement, unknownElementName } from '../lib/ipfix/registry.js';

export type { Json };
export type JsonObject = { [k: string]: Json };

/** 16 bytes as RFC 9562 text: 8-4-4-4-12 lower-case hex digits. */
export function uuidText(b: Uint8Array): string {
  const h = toHex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

type Element = FlowRecordField & { kind: 'element' };

function elementValue(field: Element, v: unknown): Json {
  if (field.encoding !== 'fixed') return v as number | string;
  const b = v as Buffer;
  switch (field.ie.type) {
    case 'ipv4Address': return formatIpv4(b, 0);
    case 'ipv6Address': return formatIpv6(b, 0);
    case 'macAddress': return formatMac(b, 0);
    default: return b.length === 16 ? uuidText(b) : toHex(b);
  }
}

export function extraEntry(pen: number, id: number, value: Buffer): [string, Json] {
  const ie = findElement(pen, id);
  if (ie === undefined) return [unknownElementName(pen, id), toHex(value)];
  const list = ie.type === 'basicList' || ie.type === 'subTemplateList' || ie.type === 'subTemplateMultiList';
  if (list || !validFieldLength(ie.type, value.length)) return [ie.name, toHex(value)];
  return [ie.name, valueToJson(readValue(ie.type, value, 0, value.length))];
}

export function exporterText(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

export function flowRecordToJson(r: FlowRecord): JsonObject {
  const out: JsonObject = {};
  if (r.exporterAddress !== '') out['@exporter'] = exporterText(r.exporterAddress, r.exporterPort);
  if (r.transport !== 'unknown') out['@transport'] = r.transport;
  out['@observationDomainId'] = r.observationDomainId;
  out['@templateId'] = r.templateId;
  out['@exportTime'] = r.exportTime / 1000;
  out['@sequenceNumber'] = r.sequenceNumber;
  if (r.receiveTime !== 0) out['@receiveTime'] = r.receiveTime;
  // Values by key in order of first appearance; a key seen twice holds the array of its values.
  const values = new Map<string, Json[]>();
  const add = (name: string, value: Json) => {
    const list = values.get(name);
    if (list === undefined) values.set(name, [value]);
    else list.push(value);
  };
  for (const field of FLOW_RECORD_FIELDS) {
    const v = r[field.name];
    if (v === null || v === undefined) continue;
    if (field.kind === 'element') add(field.name, elementValue(field, v));
    else if (field.kind === 'time') {
      const seconds = r[`${field.which}Source`] === 'seconds';
      add(seconds ? `${field.which}Seconds` : field.name, seconds ? Math.floor((v as number) / 1000) : (v as number));
    }
  }
  for (const x of r.extras) add(...extraEntry(x.pen, x.id, x.value));
  for (const [name, list] of values) out[name] = list.length === 1 ? list[0]! : list;
  return out;
}
