// The fast path from a gRPC Flow to the log, as ingest/records/transcode.ts is for IPFIX: the Flow's leaves
// (read in place by flow-fields.ts) are written straight into a RecordBuffer as the flow key and the framed
// Avro FlowRecord, following the mapping table (flow-mapping.ts). The field list is turned once into a
// generated function (as the IPFIX transcoder is, with its Emitter), constant byte runs (framing header,
// absent fields) merged.
// It must give exactly the bytes of the reference builder (flow-reference.ts), which flow-transcode.test.ts
// checks on random flows.
import { FlowaggError } from '../../lib/errors.js';
import { formatIpv4, formatIpv6 } from '../../lib/ipfix/text.js';
import { type AvroFraming, framingHeader } from '../../schemas/avro.js';
import { FLOW_RECORD_FIELDS, FLOW_RECORD_SCHEMA, FLOW_RECORD_TYPE } from '../../schemas/flow-record.js';
import { compileFunction } from '../../lib/ipfix/codegen.js';
import { MAX_LONG, ViewCache, copyBytes, writeIpfixString, writeLong, writeVarint, writeZeros } from '../../schemas/avro-binary.js';
import { FLOW_KEY_MAX_LENGTH, FlowKeyInput, writeFlowKey } from '../../schemas/flow-key.js';
import { hasText } from '../records/ipfix-read.js';
import type { RecordBuffer } from '../../schemas/record-buffer.js';
import { Emitter } from '../records/transcode.js';
import { GRPC_INVALID_FLOW } from './errors.js';
import { type FlowFields, type Leaf, LEAVES, SLOT } from '../../schemas/antrea-flow-fields.js';
import { ADDRESS_LEAVES, type FieldMapping, FLOW_MAPPING, flowFamily, PROVENANCE_LEAVES } from '../../schemas/antrea-flow-mapping.js';

/** Where the flows of one stream come from. */
export interface GrpcOrigin {
  readonly exporterAddress: string;
  readonly exporterPort: number;
}

const avscFields = (FLOW_RECORD_TYPE as unknown as { fields: { name: string; type: { toBuffer(v: unknown): Buffer } }[] }).fields;
const encodeField = (name: string, value: unknown) => avscFields.find((f) => f.name === name)!.type.toBuffer(value);

/** The parameters of the generated writer. */
const PARAMS = ['f', 'b', 'bv', 'num', 'st', 'len', 'fam', 'ob', 'obv', 'port', 'rt', 'o', 'ov', 'p', 'xs'];

/** Source that writes a mapped field, its non-null union branch (index 1, written 2) included. */
function elementSource(e: Emitter, m: FieldMapping, order: number): void {
  const s = SLOT[m.leaf];
  const c = m.conversion;
  switch (c.kind) {
    case 'uint':
      // Up to 16 bits the zig-zag value (doubling) stays in int arithmetic.
      return e.code(c.bits === 32 ? `o[p++] = 2; p = wl(o, p, num[${s}]);` : `o[p++] = 2; p = wv(o, p, (num[${s}] & ${(1 << c.bits) - 1}) * 2);`, 6);
    case 'uint64':
      return e.code(`if (num[${s}] <= ${MAX_LONG}) { o[p++] = 2; p = wl(o, p, num[${s}]); } else { o[p++] = 0; xs.push(${order}); }`, 11);
    case 'string':
      return e.code(`o[p++] = 2; if (len[${s}] === 0) o[p++] = 0; else p = ws(o, ov, p, b, bv, st[${s}], len[${s}]);`, 6);
    case 'address': {
      const size = c.family === 4 ? 4 : 16;
      return e.code(`if (fam === ${c.family}) { o[p++] = 2; p = len[${s}] === 0 ? wz(o, ov, p, ${size}) : cp(o, ov, p, b, bv, st[${s}], ${size}); } else o[p++] = 0;`, 1 + size);
    }
    case 'addressText':
      return e.code(`o[p++] = 2; p = wat(o, p, b, st[${s}], len[${s}]);`, 45);
    case 'uuid':
      return e.code(`if (len[${s}] === 36 && wu(b, st[${s}], o, p + 1)) { o[p] = 2; p += 17; } else o[p++] = 0;`, 17);
    case 'seconds':
      return e.code(`o[p++] = 2; p = wl(o, p, num[${s}] * 1000);`, 11);
  }
}

type WriteValue = (...args: unknown[]) => number;

/** Compiles the value writer: the framing header, then every FlowRecord field in schema order. */
function compileWriter(header: Buffer): { write: WriteValue; max: number } {
  const mapped = new Map(FLOW_MAPPING.map((m, i) => [m.field, { m, i }]));
  const e = new Emitter();
  e.bytes(header);
  for (const field of FLOW_RECORD_FIELDS) {
    const m = mapped.get(field.name);
    switch (field.kind) {
      case 'source':
        if (field.name === 'exporterAddress') e.code('p = wv(o, p, ob.length * 2); p = cp(o, ov, p, ob, obv, 0, ob.length);', 5);
        else if (field.name === 'exporterPort') e.code('p = wl(o, p, port);', 10);
        else if (field.name === 'receiveTime') e.code('p = wl(o, p, rt);', 10);
        else if (field.name === 'transport') e.bytes(encodeField('transport', 'grpc'));
        else if (field.name === 'templateId') e.bytes(encodeField('templateId', 0));
        else e.code(`p = wl(o, p, num[${SLOT[PROVENANCE_LEAVES[field.name]]}]${field.name === 'exportTime' ? ' * 1000' : ''});`, 10);
        break;
      case 'timeSource':
        e.bytes(encodeField(field.name, 'seconds'));
        break;
      case 'extras':
        e.code('if (xs.length > 0) p = wx(f, xs, o, p);', 0);
        e.bytes([0]);
        break;
      case 'default':
        e.bytes(field.defaultBytes);
        break;
      case 'time':
      case 'element':
        if (m === undefined) e.bytes([0]);
        else elementSource(e, m.m, m.i);
        break;
    }
  }
  e.flush();
  e.lines.push('return p;');
  const write = compileFunction<WriteValue>('writeGrpcFlow', PARAMS, e.lines.join('\n'), {
    ...e.consts, wv: writeVarint, wl: writeLong, wz: writeZeros, cp: copyBytes, ws: writeIpfixString, wat: writeAddressText, wu: writeUuid, wx: writeExtras,
  });
  return { write, max: e.max };
}

/** Avro string of a 4- or 16-byte address as text ("" when empty). */
function writeAddressText(o: Uint8Array, p: number, b: Uint8Array, start: number, n: number): number {
  const text = n === 0 ? '' : n === 4 ? formatIpv4(b, start) : formatIpv6(b, start);
  p = writeVarint(o, p, text.length * 2);
  for (let i = 0; i < text.length; i++) o[p++] = text.charCodeAt(i);
  return p;
}

/** The ExtraField prefix (pen, id) of each counter, by its index in the mapping table. */
const EXTRA_PREFIX = FLOW_MAPPING.map((m) => {
  if (m.conversion.kind !== 'uint64') return Buffer.alloc(0);
  const prefix = Buffer.alloc(20);
  return prefix.subarray(0, writeLong(prefix, writeLong(prefix, 0, m.conversion.pen), m.conversion.id));
});

/** The array block of the counters that overflowed (mapping indexes), in template order: {pen, id, the 8 bytes big-endian}. */
function writeExtras(f: FlowFields, overflowed: number[], o: Uint8Array, p: number): number {
  overflowed.sort((a, b) => a - b);
  p = writeVarint(o, p, overflowed.length * 2);
  for (const i of overflowed) {
    const prefix = EXTRA_PREFIX[i]!;
    for (let j = 0; j < prefix.length; j++) o[p++] = prefix[j]!;
    o[p++] = 16; // 8 bytes
    const slot = SLOT[FLOW_MAPPING[i]!.leaf];
    for (const word of [f.high[slot]!, f.low[slot]!]) {
      o[p++] = word >>> 24;
      o[p++] = (word >>> 16) & 0xff;
      o[p++] = (word >>> 8) & 0xff;
      o[p++] = word & 0xff;
    }
  }
  return p;
}

function invalid(why: string, leaf: Leaf): FlowaggError {
  return new FlowaggError(GRPC_INVALID_FLOW, `invalid Flow: ${LEAVES[leaf]}: ${why}`, { context: { field: LEAVES[leaf] } });
}

const HEX = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) HEX['0123456789abcdef'.charCodeAt(i)] = HEX['0123456789ABCDEF'.charCodeAt(i)] = i;

/** Writes the 16 bytes of canonical UUID text b[s, s+36) at o[p]; false (nothing meaningful written) when it is not one. */
function writeUuid(b: Uint8Array, s: number, o: Uint8Array, p: number): boolean {
  let q = p;
  for (let i = 0; i < 36; ) {
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (b[s + i] !== 0x2d) return false;
      i++;
      continue;
    }
    const hi = HEX[b[s + i]!]!;
    const lo = HEX[b[s + i + 1]!]!;
    if ((hi | lo) < 0) return false;
    o[q++] = (hi << 4) | lo;
    i += 2;
  }
  return true;
}

/** Compiled once per framing: writes Flows of any stream. */
export class FlowTranscoder {
  readonly #write: WriteValue;
  readonly #max: number;
  readonly #views = new ViewCache();
  readonly #originViews = new ViewCache();
  readonly #key = new FlowKeyInput();
  readonly #keyBytes = new Uint8Array(48);
  readonly #overflowed: number[] = [];

  constructor(framing: AvroFraming = { kind: 'single-object' }) {
    const { write, max } = compileWriter(framingHeader(framing, FLOW_RECORD_SCHEMA));
    this.#write = write;
    this.#max = FLOW_KEY_MAX_LENGTH + max;
  }

  /**
   * Writes the key and value of the Flow in `f` (of `flowLength` bytes) at out.pos (out.key(), out.value()).
   * Throws GRPC_INVALID_FLOW, with nothing written, when an address does not fit the flow's family.
   */
  write(f: FlowFields, flowLength: number, origin: GrpcOrigin, originBytes: Buffer, receiveTime: number, out: RecordBuffer): void {
    const len = f.length;
    const family = flowFamily(f.num[SLOT.ipVersion]!, len[SLOT.source]!, len[SLOT.destination]!);
    const size = family === 4 ? 4 : 16;
    for (const slot of ADDRESS_SLOTS) {
      const n = len[slot]!;
      if (n !== 0 && n !== size) throw invalid(`${n} bytes, an IPv${family} address has ${size}`, SLOT_LEAF[slot]!);
    }
    const egress = len[SLOT.egressIp]!;
    if (egress !== 0 && egress !== 4 && egress !== 16) throw invalid(`${egress} bytes is not an IPv4 or IPv6 address`, 'egressIp');
    // Strings (and the origin's address) take at most 3 × their bytes plus 5 (writeIpfixString).
    out.reserve(this.#max + 3 * flowLength + originBytes.length);
    const o = out.buf;
    out.keyStart = out.pos;
    out.keyEnd = this.#writeKey(f, family, size, o, out.pos);
    this.#overflowed.length = 0;
    const p = this.#write(
      f, f.bytes, this.#views.of(f.bytes), f.num, f.start, len, family, originBytes, this.#originViews.of(originBytes),
      origin.exporterPort, receiveTime, o, out.view, out.keyEnd, this.#overflowed,
    );
    out.valueEnd = p;
    out.pos = p;
  }

  /** The flow key (schemas/flow-key.ts) from the flow's addresses, copied side by side. */
  #writeKey(f: FlowFields, family: 4 | 6, size: number, o: Uint8Array, p: number): number {
    const k = this.#key.reset(this.#keyBytes);
    const scratch = this.#keyBytes;
    for (let a = 0; a < KEY_SLOTS.length; a++) {
      const slot = KEY_SLOTS[a]!;
      const n = f.length[slot]!;
      const from = f.start[slot]!;
      for (let i = 0; i < size; i++) scratch[a * 16 + i] = n === 0 ? 0 : f.bytes[from + i]!;
    }
    if (family === 4) {
      k.sourceIPv4 = 0;
      k.destinationIPv4 = 16;
      k.proxySnatIPv4 = 32;
    } else {
      k.sourceIPv6 = 0;
      k.destinationIPv6 = 16;
      k.proxySnatIPv6 = 32;
    }
    const num = f.num;
    k.protocol = num[SLOT.protocol]! & 0xff;
    k.sourcePort = num[SLOT.sourcePort]! & 0xffff;
    k.destinationPort = num[SLOT.destinationPort]! & 0xffff;
    k.proxySnatPort = num[SLOT.proxySnatPort]! & 0xffff;
    k.flowType = num[SLOT.flowType]! & 0xff;
    k.destinationPodNamed = hasText(f.bytes, f.start[SLOT.destinationPodName]!, f.length[SLOT.destinationPodName]!);
    return writeFlowKey(k, o, p);
  }
}

/** The slots of the key's addresses, at 0, 16 and 32 of the key scratch. */
const KEY_SLOTS = [SLOT.source, SLOT.destination, SLOT.proxySnatIp];
const ADDRESS_SLOTS = ADDRESS_LEAVES.map((l) => SLOT[l]);
const SLOT_LEAF = Object.keys(SLOT) as Leaf[];
