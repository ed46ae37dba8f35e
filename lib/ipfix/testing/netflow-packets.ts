// Test and benchmark support: NetFlow v9 and v5 packets built byte by byte from RFC 3954 and Cisco's v5 layout
// (the codec only reads NetFlow; flowagg never sends it). Values are written with the codec's writeValue, typed
// by the element each v9 field maps to. Production code never imports this file.
import { writeValue } from '../field-codec.js';
import { netflowFieldElement } from '../netflow-fields.js';
import type { FieldValue } from '../types.js';

export interface NetflowField {
  readonly type: number;
  readonly length: number;
}

export interface NetflowTemplate {
  readonly id: number;
  readonly fields: readonly NetflowField[];
  /** Options templates only: the scope fields, before `fields`. */
  readonly scope?: readonly NetflowField[];
}

export interface V9Header {
  readonly sysUpTime: number;
  readonly unixSecs: number;
  readonly sequence: number;
  readonly sourceId: number;
  /** The header's record count; by default the records the FlowSets hold. */
  readonly count?: number;
}

const u16 = (v: number) => [(v >>> 8) & 0xff, v & 0xff];

function padded(bytes: Buffer): Buffer {
  return bytes.length % 4 === 0 ? bytes : Buffer.concat([bytes, Buffer.alloc(4 - (bytes.length % 4))]);
}

function flowSet(id: number, body: Buffer): Buffer {
  const content = padded(Buffer.concat([Buffer.alloc(4), body]));
  content.writeUInt16BE(id, 0);
  content.writeUInt16BE(content.length, 2);
  return content;
}

const fieldBytes = (fields: readonly NetflowField[]) => fields.flatMap((f) => [...u16(f.type), ...u16(f.length)]);

/** A Template FlowSet (id 0) holding `templates`. */
export function v9TemplateSet(templates: readonly NetflowTemplate[]): Buffer {
  return flowSet(0, Buffer.from(templates.flatMap((t) => [...u16(t.id), ...u16(t.fields.length), ...fieldBytes(t.fields)])));
}

/** An Options Template FlowSet (id 1) holding `templates` (each with its scope fields). */
export function v9OptionsTemplateSet(templates: readonly NetflowTemplate[]): Buffer {
  return flowSet(1, Buffer.from(templates.flatMap((t) => {
    const scope = t.scope ?? [];
    return [...u16(t.id), ...u16(scope.length * 4), ...u16(t.fields.length * 4), ...fieldBytes(scope), ...fieldBytes(t.fields)];
  })));
}

/** One record of `template`: values in field order (scope fields first), typed by the elements they map to. */
export function v9Record(template: NetflowTemplate, values: readonly FieldValue[]): Buffer {
  const fields = [...(template.scope ?? []).map((f) => ({ ...f, scope: true })), ...template.fields.map((f) => ({ ...f, scope: false }))];
  return Buffer.concat(fields.map((f, i) => {
    const b = Buffer.alloc(f.length);
    const v = values[i]!;
    if (v instanceof Uint8Array) b.set(v);
    else writeValue(netflowFieldElement(f.type, f.length, f.scope).type, b, 0, f.length, v);
    return b;
  }));
}

/** A data FlowSet of template `id` holding `records` (padded to 4 bytes). */
export function v9DataSet(id: number, records: readonly Buffer[]): Buffer {
  return flowSet(id, Buffer.concat(records));
}

/** A v9 packet of `flowSets` under header `h`; `records` is what the header's count says unless h.count does. */
export function v9Packet(h: V9Header, flowSets: readonly Buffer[], records = 0): Buffer {
  const header = Buffer.alloc(20);
  header.writeUInt16BE(9, 0);
  header.writeUInt16BE(h.count ?? records, 2);
  header.writeUInt32BE(h.sysUpTime >>> 0, 4);
  header.writeUInt32BE(h.unixSecs >>> 0, 8);
  header.writeUInt32BE(h.sequence >>> 0, 12);
  header.writeUInt32BE(h.sourceId >>> 0, 16);
  return Buffer.concat([header, ...flowSets]);
}

export interface V5Header {
  readonly sysUpTime: number;
  readonly unixSecs: number;
  readonly unixNsecs: number;
  readonly flowSequence: number;
  readonly engineType: number;
  readonly engineId: number;
  /** The 16-bit field: 2 bits of mode, 14 of interval. */
  readonly sampling: number;
  readonly count?: number;
}

export interface V5Record {
  readonly src: string;
  readonly dst: string;
  readonly nextHop?: string;
  readonly input?: number;
  readonly output?: number;
  readonly packets: number;
  readonly octets: number;
  /** ms of sysUpTime. */
  readonly first: number;
  readonly last: number;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly tcpFlags?: number;
  readonly protocol: number;
  readonly tos?: number;
  readonly srcAs?: number;
  readonly dstAs?: number;
  readonly srcMask?: number;
  readonly dstMask?: number;
}

function v5Record(r: V5Record): Buffer {
  const b = Buffer.alloc(48);
  const ip = (at: number, text: string) => text.split('.').forEach((o, i) => (b[at + i] = Number(o)));
  ip(0, r.src);
  ip(4, r.dst);
  ip(8, r.nextHop ?? '0.0.0.0');
  b.writeUInt16BE(r.input ?? 0, 12);
  b.writeUInt16BE(r.output ?? 0, 14);
  b.writeUInt32BE(r.packets, 16);
  b.writeUInt32BE(r.octets, 20);
  b.writeUInt32BE(r.first >>> 0, 24);
  b.writeUInt32BE(r.last >>> 0, 28);
  b.writeUInt16BE(r.srcPort, 32);
  b.writeUInt16BE(r.dstPort, 34);
  b[37] = r.tcpFlags ?? 0;
  b[38] = r.protocol;
  b[39] = r.tos ?? 0;
  b.writeUInt16BE(r.srcAs ?? 0, 40);
  b.writeUInt16BE(r.dstAs ?? 0, 42);
  b[44] = r.srcMask ?? 0;
  b[45] = r.dstMask ?? 0;
  return b;
}

export function v5Packet(h: V5Header, records: readonly V5Record[]): Buffer {
  const header = Buffer.alloc(24);
  header.writeUInt16BE(5, 0);
  header.writeUInt16BE(h.count ?? records.length, 2);
  header.writeUInt32BE(h.sysUpTime >>> 0, 4);
  header.writeUInt32BE(h.unixSecs >>> 0, 8);
  header.writeUInt32BE(h.unixNsecs >>> 0, 12);
  header.writeUInt32BE(h.flowSequence >>> 0, 16);
  header[20] = h.engineType;
  header[21] = h.engineId;
  header.writeUInt16BE(h.sampling, 22);
  return Buffer.concat([header, ...records.map(v5Record)]);
}

/** A Cisco IOS-like v9 flow template (IPv4): counters, 5-tuple, ToS, flags, interfaces, masks, next hop, AS, times, sampler. */
export const ROUTER_TEMPLATE: NetflowTemplate = {
  id: 256,
  fields: [
    [1, 4], [2, 4], [4, 1], [5, 1], [6, 1], [7, 2], [8, 4], [9, 1], [10, 2], [11, 2], [12, 4], [13, 1], [14, 2], [15, 4],
    [16, 2], [17, 2], [21, 4], [22, 4], [48, 1], [61, 1],
  ].map(([type, length]) => ({ type: type!, length: length! })),
};

/** Options template of a router's samplers: scope System, then FLOW_SAMPLER_ID, FLOW_SAMPLER_MODE, FLOW_SAMPLER_RANDOM_INTERVAL. */
export const SAMPLER_OPTIONS_TEMPLATE: NetflowTemplate = {
  id: 257,
  scope: [{ type: 1, length: 4 }],
  fields: [{ type: 48, length: 1 }, { type: 49, length: 1 }, { type: 50, length: 4 }],
};

/** Values of record `i` of ROUTER_TEMPLATE, with times in ms of sysUpTime ending at `upTime`. */
export function routerValues(i: number, upTime: number, sampler = 1): FieldValue[] {
  const last = upTime - 1000 - (i % 500);
  return [
    1500 * (i + 1), i + 1, i % 3 === 0 ? 17 : 6, (i % 8) * 32, i % 3 === 0 ? 0 : 0x1b, 1024 + (i % 60000), `198.51.100.${i % 250}`, 24,
    1 + (i % 4), 443, `203.0.113.${(i * 7) % 250}`, 24, 5 + (i % 4), '192.0.2.254', 64500, 64501 + (i % 10), last, last - 5000, sampler, i % 2,
  ];
}
