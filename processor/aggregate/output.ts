// An aggregated flow as the FlowRecord the processor writes to flows.processed: Antrea's aggregated
// record (reference §4.3: the IANA, reverse and Antrea elements, the per-Node counters, flow ends and
// throughputs), with Antrea's value conventions (missing addresses 0.0.0.0 or ::, missing text "",
// numbers 0); fields Antrea's aggregated record does not carry are null (extras, the proxy-mode
// elements; clusterId, which the exporters add). Provenance: no single exporter; exportTime is the
// partition's event time at the export, sequenceNumber the number of the flow's exports before this one.
//
// Every field's source is one entry of SOURCES below. Two writers follow it: a reference one that builds
// a FlowRecord object and encodes it with avsc, obviously right and slow, and one compiled from the
// schema that writes the Avro bytes straight from the store rows (interned strings keep their encoding).
// output.test.ts checks both give the same bytes.
import { compileFunction } from '../../lib/ipfix/codegen.js';
import { writeAll, writeLong } from '../../schemas/avro-binary.js';
import type { RecordBuffer } from '../../schemas/record-buffer.js';
import { framingHeader, type AvroFraming } from '../../schemas/avro.js';
import { FLOW_RECORD_FIELDS, FLOW_RECORD_SCHEMA, FLOW_RECORD_TYPE, type FlowRecord } from '../../schemas/flow-record.js';
import {
  ADDRESS_FAMILY_FIELDS, ADDRESS_FIELDS, DELTA_FIELDS, F_DELTA, F_END, F_START, F_THROUGHPUT, F_TOTAL, F_WIDTH, I_ADDRESS, I_EXPORTS, I_SERVICE_PORT,
  I_SNAT_PORT, I_SOURCE_ADDRESS, I_SOURCE_PORT, I_UUID, I_WIDTH, S_DELTA, S_END, S_THROUGHPUT, S_TOTAL, sideBase, sideField, SMALL_INT_FIELDS,
  TEXT_FIELDS, THROUGHPUT_FIELDS, TOTAL_FIELDS, U_END_SOURCE, U_START_SOURCE, U_WIDTH, UUID_FIELDS,
} from './columns.js';
import { keyAddress, keyFamily, keyPort, keyProtocol } from './flow-key-text.js';
import type { FlowStore } from './store.js';

type Source =
  | { readonly kind: 'absent' }
  | { readonly kind: 'schemaDefault' }
  | { readonly kind: 'exportTime' }
  | { readonly kind: 'exports' }
  | { readonly kind: 'f64'; readonly column: number }
  | { readonly kind: 'seconds'; readonly column: number }
  | { readonly kind: 'u8'; readonly column: number }
  | { readonly kind: 'i32'; readonly column: number }
  | { readonly kind: 'timeSource'; readonly column: number }
  | { readonly kind: 'text'; readonly column: number }
  | { readonly kind: 'uuid'; readonly column: number }
  | { readonly kind: 'address'; readonly column: number; readonly family: 4 | 6 }
  | { readonly kind: 'flowAddress'; readonly which: 0 | 1; readonly family: 4 | 6 }
  | { readonly kind: 'flowPort'; readonly which: 0 | 1 }
  | { readonly kind: 'protocol' };

function sources(): ReadonlyMap<string, Source> {
  const m = new Map<string, Source>();
  for (const name of ['exporterAddress', 'exporterPort', 'transport', 'observationDomainId', 'templateId', 'receiveTime', 'extras']) m.set(name, { kind: 'schemaDefault' });
  m.set('exportTime', { kind: 'exportTime' });
  m.set('sequenceNumber', { kind: 'exports' });
  m.set('flowStartMilliseconds', { kind: 'f64', column: F_START });
  m.set('flowEndMilliseconds', { kind: 'f64', column: F_END });
  m.set('flowStartSource', { kind: 'timeSource', column: U_START_SOURCE });
  m.set('flowEndSource', { kind: 'timeSource', column: U_END_SOURCE });
  for (const [family, v] of [[4, 'IPv4'], [6, 'IPv6']] as const) {
    m.set(`source${v}Address`, { kind: 'flowAddress', which: 0, family });
    m.set(`destination${v}Address`, { kind: 'flowAddress', which: 1, family });
  }
  m.set('sourceTransportPort', { kind: 'flowPort', which: 0 });
  m.set('destinationTransportPort', { kind: 'flowPort', which: 1 });
  m.set('protocolIdentifier', { kind: 'protocol' });
  TOTAL_FIELDS.forEach((name, k) => m.set(name, { kind: 'f64', column: F_TOTAL + k }));
  DELTA_FIELDS.forEach((name, k) => m.set(name, { kind: 'f64', column: F_DELTA + k }));
  THROUGHPUT_FIELDS.forEach((name, k) => m.set(name, { kind: 'f64', column: F_THROUGHPUT + k }));
  for (const side of [0, 1]) {
    const s = sideBase(side);
    TOTAL_FIELDS.forEach((name, k) => m.set(sideField(name, side), { kind: 'f64', column: s + S_TOTAL + k }));
    DELTA_FIELDS.forEach((name, k) => m.set(sideField(name, side), { kind: 'f64', column: s + S_DELTA + k }));
    THROUGHPUT_FIELDS.forEach((name, k) => m.set(sideField(name, side), { kind: 'f64', column: s + S_THROUGHPUT + k }));
    m.set(sideField('flowEndSeconds', side), { kind: 'seconds', column: s + S_END });
  }
  TEXT_FIELDS.forEach((name, c) => m.set(name, { kind: 'text', column: c }));
  UUID_FIELDS.forEach((name, c) => m.set(name, { kind: 'uuid', column: I_UUID + c }));
  ADDRESS_FIELDS.forEach((name, c) => {
    const [v4, v6] = ADDRESS_FAMILY_FIELDS[name];
    m.set(v4, { kind: 'address', column: I_ADDRESS + c, family: 4 });
    m.set(v6, { kind: 'address', column: I_ADDRESS + c, family: 6 });
  });
  for (const [column, field] of SMALL_INT_FIELDS) m.set(field, { kind: 'u8', column });
  m.set('destinationServicePort', { kind: 'i32', column: I_SERVICE_PORT });
  m.set('proxySnatPort', { kind: 'i32', column: I_SNAT_PORT });
  return m;
}

const SOURCES = sources();
const sourceOf = (name: string): Source => SOURCES.get(name) ?? { kind: 'absent' };

const TIME_SOURCES = ['unknown', 'seconds', 'milliseconds', 'microseconds', 'nanoseconds', 'deltaMicroseconds', 'sysUpTime'] as const;

/** The flow's source address: the external client behind a proxy SNAT when it was learned, else the key's. */
function flowSource(store: FlowStore, slot: number): { address: string; port: number } {
  const key = store.keys[slot]!;
  const id = store.i32[slot * I_WIDTH + I_SOURCE_ADDRESS]!;
  return id === 0 ? { address: keyAddress(key, 0), port: keyPort(key, 0) } : { address: store.pool.text(id), port: store.i32[slot * I_WIDTH + I_SOURCE_PORT]! };
}

/** `bytes` (latin1) as a fixed of `size`, zeros when it has another size (no address of that family). */
function fixedOf(bytes: string, size: number): Buffer {
  return bytes.length === size ? Buffer.from(bytes, 'latin1') : Buffer.alloc(size);
}

/** The reference writer's FlowRecord of a flow: what SOURCES says, as avsc values. */
export function aggregatedRecord(store: FlowStore, slot: number, exportTime: number): FlowRecord {
  const key = store.keys[slot]!;
  const family = keyFamily(key);
  const f = slot * F_WIDTH;
  const i = slot * I_WIDTH;
  const u = slot * U_WIDTH;
  const source = flowSource(store, slot);
  const avscFields = (FLOW_RECORD_TYPE as unknown as { fields: { defaultValue(): unknown }[] }).fields;
  const out: Record<string, unknown> = {};
  FLOW_RECORD_FIELDS.forEach((field, index) => {
    const s = sourceOf(field.name);
    const value = (): unknown => {
      switch (s.kind) {
        case 'absent': return null;
        case 'schemaDefault': return avscFields[index]!.defaultValue();
        case 'exportTime': return exportTime;
        case 'exports': return store.i32[i + I_EXPORTS];
        case 'f64': return store.f64[f + s.column];
        case 'seconds': return Math.floor(store.f64[f + s.column]! / 1000);
        case 'u8': return store.u8[u + s.column];
        case 'i32': return store.i32[i + s.column];
        case 'timeSource': return store.u8[u + s.column] === 0 ? null : TIME_SOURCES[store.u8[u + s.column]! - 1];
        case 'text': return store.text(slot, s.column);
        case 'uuid': return store.i32[i + s.column] === 0 ? null : fixedOf(store.text(slot, s.column), 16);
        case 'address': return family !== s.family ? null : fixedOf(store.text(slot, s.column), s.family === 4 ? 4 : 16);
        case 'flowAddress': return family !== s.family ? null : fixedOf(s.which === 0 ? source.address : keyAddress(key, 1), s.family === 4 ? 4 : 16);
        case 'flowPort': return s.which === 0 ? source.port : keyPort(key, 1);
        case 'protocol': return keyProtocol(key);
      }
    };
    out[field.name] = value();
  });
  return out as FlowRecord;
}

// ---- the compiled writer ----

export type OutputEncoder = (store: FlowStore, slot: number, exportTime: number, out: RecordBuffer) => void;

/** Writes a latin1 string of `size` characters as that many bytes, or zeros when it has another length. */
function writeFixed(o: Uint8Array, p: number, bytes: string, size: number): number {
  if (bytes.length === size) for (let k = 0; k < size; k++) o[p + k] = bytes.charCodeAt(k);
  else o.fill(0, p, p + size);
  return p + size;
}

const union = (code: string) => `o[p++] = 2; ${code}`;

function fieldCode(s: Source): string | Buffer {
  switch (s.kind) {
    case 'absent': return Buffer.from([0]);
    case 'schemaDefault': throw new Error('schema defaults are constant bytes');
    case 'exportTime': return 'p = wl(o, p, exportTime);';
    case 'exports': return `p = wl(o, p, i32[ii + ${I_EXPORTS}]);`;
    case 'f64': return union(`p = wl(o, p, f64[fi + ${s.column}]);`);
    case 'seconds': return union(`p = wl(o, p, Math.floor(f64[fi + ${s.column}] / 1000));`);
    case 'u8': return union(`p = wl(o, p, u8[ui + ${s.column}]);`);
    case 'i32': return union(`p = wl(o, p, i32[ii + ${s.column}]);`);
    case 'timeSource': return `{ const v = u8[ui + ${s.column}]; if (v === 0) o[p++] = 0; else { o[p++] = 2; o[p++] = (v - 1) * 2; } }`;
    case 'text': return union(`p = wb(o, p, pool.avroString(i32[ii + ${s.column}]));`);
    case 'uuid': return `{ const id = i32[ii + ${s.column}]; if (id === 0) o[p++] = 0; else { o[p++] = 2; p = wf(o, p, pool.text(id), 16); } }`;
    case 'address': return `if (family === ${s.family}) { o[p++] = 2; p = wf(o, p, pool.text(i32[ii + ${s.column}]), ${s.family === 4 ? 4 : 16}); } else o[p++] = 0;`;
    case 'flowAddress': return `if (family === ${s.family}) { o[p++] = 2; p = wf(o, p, ${s.which === 0 ? 'source.address' : 'ka(key, 1)'}, ${s.family === 4 ? 4 : 16}); } else o[p++] = 0;`;
    case 'flowPort': return union(`p = wl(o, p, ${s.which === 0 ? 'source.port' : 'kp(key, 1)'});`);
    case 'protocol': return union('p = wl(o, p, kq(key));');
  }
}

/** Bytes written besides the texts: at most 11 per field, 16 per fixed. */
const MAX_FIXED_BYTES = FLOW_RECORD_FIELDS.length * 17 + 16;

export function compileOutputEncoder(framing: AvroFraming = { kind: 'single-object' }): OutputEncoder {
  const avscFields = (FLOW_RECORD_TYPE as unknown as { fields: { type: { toBuffer(v: unknown): Buffer }; defaultValue(): unknown }[] }).fields;
  const lines = ['const key = store.keys[slot];', 'const family = kf(key);', 'const source = src(store, slot);', 'const fi = slot * F_WIDTH, ii = slot * I_WIDTH, ui = slot * U_WIDTH;',
    'const f64 = store.f64, i32 = store.i32, u8 = store.u8, pool = store.pool;', `let room = ${MAX_FIXED_BYTES};`];
  // Room for the texts: their encodings, known before writing anything.
  TEXT_FIELDS.forEach((_, c) => lines.push(`room += pool.avroString(i32[ii + ${c}]).length;`));
  lines.push('out.reserve(room);', 'const o = out.buf;', 'let p = out.pos;', 'out.keyStart = out.keyEnd = p;');
  const consts: Record<string, Buffer> = {};
  let run: number[] = [...framingHeader(framing, FLOW_RECORD_SCHEMA)];
  const flush = () => {
    if (run.length === 0) return;
    const name = `C${Object.keys(consts).length}`;
    consts[name] = Buffer.from(run);
    lines.push(`p = wb(o, p, ${name});`);
    run = [];
  };
  FLOW_RECORD_FIELDS.forEach((field, index) => {
    const s = sourceOf(field.name);
    const code = s.kind === 'schemaDefault' ? avscFields[index]!.type.toBuffer(avscFields[index]!.defaultValue()) : fieldCode(s);
    if (typeof code !== 'string') {
      run.push(...code);
      return;
    }
    flush();
    lines.push(code);
  });
  flush();
  lines.push('out.valueEnd = out.pos = p;');
  return compileFunction<OutputEncoder>('encodeAggregatedFlow', ['store', 'slot', 'exportTime', 'out'], lines.join('\n'), {
    ...consts, wl: writeLong, wb: writeAll, wf: writeFixed, kf: keyFamily, ka: keyAddress, kp: keyPort, kq: keyProtocol, src: flowSource, F_WIDTH, I_WIDTH, U_WIDTH,
  });
}
