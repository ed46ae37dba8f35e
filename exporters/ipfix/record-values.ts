// From a FlowRecord to the values of one export template, in template order, with Antrea's conventions
// for what the record does not have (makeIPFIXRecord): 0 for numbers, "" for strings, 0.0.0.0 or :: for
// addresses, 16 zero bytes for UUIDs, 0xFF (unknown) for flowDirection. Compiled once per template into
// straight-line reads, filling one reused array: the encoder copies the values out at once.
import { compileFunction } from '../../lib/ipfix/codegen.js';
import { parseIpv4Into, parseIpv6Into } from '../../lib/ipfix/text.js';
import { type FieldValue, type Template } from '../../lib/ipfix/types.js';
import { type FlowRecord } from '../../schemas/flow-record.js';

export type RecordValues = (r: FlowRecord) => FieldValue[];

const Z4 = new Uint8Array(4);
const Z6 = new Uint8Array(6);
const Z16 = new Uint8Array(16);
const FLOW_DIRECTION_UNKNOWN = 0xff;

const caches = { 4: new Map<string, Uint8Array>(), 16: new Map<string, Uint8Array>() };

/** The record's exporter address as `size` bytes when it is of that family, else zeros (bounded cache). */
function exporterBytes(r: FlowRecord, size: 4 | 16): Uint8Array {
  const cache = caches[size];
  const text = r.exporterAddress;
  let hit = cache.get(text);
  if (hit === undefined) {
    const out = new Uint8Array(size);
    hit = (size === 4 ? parseIpv4Into(text, out, 0) : parseIpv6Into(text, out, 0)) ? out : size === 4 ? Z4 : Z16;
    if (cache.size >= 4096) cache.clear();
    cache.set(text, hit);
  }
  return hit;
}

/** The expression for one element's value from record `r`. Names come from the element registry, not from input. */
function valueExpr(name: string, type: string): string {
  switch (name) {
    case 'flowStartSeconds': return 'r.flowStartMilliseconds === null ? 0 : Math.floor(r.flowStartMilliseconds / 1000)';
    case 'flowEndSeconds': return 'r.flowEndMilliseconds === null ? 0 : Math.floor(r.flowEndMilliseconds / 1000)';
    case 'flowDirection': return `r.flowDirection ?? ${FLOW_DIRECTION_UNKNOWN}`;
    case 'clusterId': return "clusterId !== '' ? clusterId : (r.clusterId ?? '')";
    // Proxy mode: the processor fills these from the record's origin; a record without them still has one.
    case 'originalObservationDomainId': return 'r.originalObservationDomainId ?? r.observationDomainId';
    case 'originalExporterIPv4Address': return 'r.originalExporterIPv4Address ?? exporterBytes(r, 4)';
    case 'originalExporterIPv6Address': return 'r.originalExporterIPv6Address ?? exporterBytes(r, 16)';
    default: break;
  }
  switch (type) {
    case 'string': return `r.${name} ?? ''`;
    case 'ipv4Address': return `r.${name} ?? Z4`;
    case 'ipv6Address': case 'octetArray': return `r.${name} ?? Z16`;
    case 'macAddress': return `r.${name} ?? Z6`;
    default: return `r.${name} ?? 0`;
  }
}

/** The values function of `template` (whose elements are FlowRecord fields), for a given clusterId ("" = the record's). */
export function recordValues(template: Template, clusterId: string): RecordValues {
  const lines = template.fields.map((f, i) => {
    if (!/^[A-Za-z]\w*$/.test(f.ie.name)) throw new Error(`record-values: element name ${f.ie.name} is not an identifier`);
    return `v[${i}] = ${valueExpr(f.ie.name, f.ie.type)};`;
  });
  const values = new Array<FieldValue>(template.fields.length).fill(0);
  return compileFunction<RecordValues>(`valuesOfTemplate${template.id}`, ['r'], [...lines, 'return v;'].join('\n'), {
    v: values, clusterId, Z4, Z6, Z16, exporterBytes,
  });
}
