// The fast path from a gRPC Flow to the log, as ingest/records/transcode.ts is for IPFIX: the Flow's leaves
// (read in place by flow-fields.ts) are written straight into a RecordBuffer as the flow key and the framed
// Avro FlowRecord, following the mapping table (flow-mapping.ts). The field list is turned once into a
// list of operations in schema order, with runs of constant bytes (framing header, absent fields) merged.
// It must give exactly the bytes of the reference builder (flow-reference.ts), which flow-transcode.test.ts
// checks on random flows.
import { FlowaggError } from '../../lib/errors.js';
import { formatIpv4, formatIpv6 } from '../../lib/ipfix/text.js';
import { type AvroFraming, framingHeader } from '../../schemas/avro.js';
import { FLOW_RECORD_FIELDS, FLOW_RECORD_SCHEMA, FLOW_RECORD_TYPE } from '../../schemas/flow-record.js';
import { MAX_LONG, ViewCache, copyBytes, writeIpfixString, writeLong, writeVarint } from '../records/avro-binary.js';
import { FLOW_KEY_MAX_LENGTH, FlowKeyInput, writeFlowKey } from '../records/flow-key.js';
import { hasText } from '../records/ipfix-read.js';
import { type RecordBuffer } from '../records/record-buffer.js';
import { GRPC_INVALID_FLOW } from './errors.js';
import { type FlowFields, type Leaf, LEAVES, SLOT } from './flow-fields.js';
import { ADDRESS_LEAVES, type FieldMapping, FLOW_MAPPING, flowFamily, PROVENANCE_LEAVES } from './flow-mapping.js';

/** Where the flows of one stream come from. */
export interface GrpcOrigin {
  readonly exporterAddress: string;
  readonly exporterPort: number;
}

const enum Op {
  Bytes, OriginAddress, OriginPort, Long, Seconds, Uint, Uint64, String, Address, AddressText, Uuid, ReceiveTime, Extras,
}

type Operation =
  | { readonly op: Op.Bytes; readonly bytes: Buffer; readonly view: DataView }
  | { readonly op: Op.OriginAddress | Op.OriginPort | Op.ReceiveTime | Op.Extras }
  | { readonly op: Op.Long; readonly slot: number; readonly scale: number }
  | { readonly op: Op.Seconds | Op.String | Op.AddressText | Op.Uuid; readonly slot: number }
  | { readonly op: Op.Uint; readonly slot: number; readonly mask: number }
  | { readonly op: Op.Uint64; readonly slot: number; readonly extra: Buffer; readonly order: number }
  | { readonly op: Op.Address; readonly slot: number; readonly family: 4 | 6 };

const avscFields = (FLOW_RECORD_TYPE as unknown as { fields: { name: string; type: { toBuffer(v: unknown): Buffer } }[] }).fields;
const encodeField = (name: string, value: unknown) => avscFields.find((f) => f.name === name)!.type.toBuffer(value);
const slotOf = (leaf: Leaf) => SLOT[leaf];

/** The operation that writes a mapped field, a non-null union branch (index 1, written 2) included. */
function elementOperation(m: FieldMapping, order: number): Operation {
  const slot = slotOf(m.leaf);
  const c = m.conversion;
  switch (c.kind) {
    case 'uint':
      return { op: Op.Uint, slot, mask: c.bits === 32 ? -1 : (1 << c.bits) - 1 };
    case 'uint64': {
      // The ExtraField prefix (pen, id) of the counter's 8 IPFIX bytes, for values a long cannot hold.
      const prefix = Buffer.alloc(20);
      const n = writeLong(prefix, writeLong(prefix, 0, c.pen), c.id);
      return { op: Op.Uint64, slot, extra: prefix.subarray(0, n), order };
    }
    case 'string':
      return { op: Op.String, slot };
    case 'address':
      return { op: Op.Address, slot, family: c.family };
    case 'addressText':
      return { op: Op.AddressText, slot };
    case 'uuid':
      return { op: Op.Uuid, slot };
    case 'seconds':
      return { op: Op.Seconds, slot };
  }
}

function operations(header: Buffer): Operation[] {
  const mapped = new Map(FLOW_MAPPING.map((m, i) => [m.field, { m, i }]));
  const out: Operation[] = [];
  let run: number[] = [...header];
  const bytes = (b: Iterable<number>) => run.push(...b);
  const flush = () => {
    if (run.length === 0) return;
    const b = Buffer.from(run);
    out.push({ op: Op.Bytes, bytes: b, view: new DataView(b.buffer, b.byteOffset, b.length) });
    run = [];
  };
  const add = (o: Operation) => {
    flush();
    out.push(o);
  };
  for (const field of FLOW_RECORD_FIELDS) {
    const m = mapped.get(field.name);
    switch (field.kind) {
      case 'source':
        if (field.name === 'exporterAddress') add({ op: Op.OriginAddress });
        else if (field.name === 'exporterPort') add({ op: Op.OriginPort });
        else if (field.name === 'receiveTime') add({ op: Op.ReceiveTime });
        else if (field.name === 'transport') bytes(encodeField('transport', 'grpc'));
        else if (field.name === 'templateId') bytes(encodeField('templateId', 0));
        else add({ op: Op.Long, slot: slotOf(PROVENANCE_LEAVES[field.name]), scale: field.name === 'exportTime' ? 1000 : 1 });
        break;
      case 'timeSource':
        bytes(encodeField(field.name, 'seconds'));
        break;
      case 'extras':
        add({ op: Op.Extras });
        break;
      case 'default':
        bytes(field.defaultBytes);
        break;
      case 'time':
      case 'element':
        if (m === undefined) bytes([0]);
        else add(elementOperation(m.m, m.i));
        break;
    }
  }
  flush();
  return out;
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
  readonly #ops: readonly Operation[];
  readonly #max: number;
  readonly #views = new ViewCache();
  readonly #key = new FlowKeyInput();
  readonly #keyBytes = new Uint8Array(48);
  readonly #overflowed: Operation[] = [];

  constructor(framing: AvroFraming = { kind: 'single-object' }) {
    this.#ops = operations(framingHeader(framing, FLOW_RECORD_SCHEMA));
    // Bytes runs as they are; at most 11 per number, 17 per address or UUID, 45 per address text; strings and
    // the origin's address are bounded by 3 × their input plus 5 (writeIpfixString), added per record.
    this.#max = FLOW_KEY_MAX_LENGTH + this.#ops.reduce((n, o) => n + (o.op === Op.Bytes ? o.bytes.length : o.op === Op.AddressText ? 45 : o.op === Op.Uint64 ? 40 : 17), 0);
  }

  /**
   * Writes the key and value of the Flow in `f` at out.pos (out.key(), out.value()). Throws
   * GRPC_INVALID_FLOW, with nothing written, when an address does not fit the flow's family.
   */
  write(f: FlowFields, flowLength: number, origin: GrpcOrigin, originBytes: Buffer, receiveTime: number, out: RecordBuffer): void {
    const b = f.bytes;
    const len = f.length;
    const family = flowFamily(f.num[SLOT.ipVersion]!, len[SLOT.source]!, len[SLOT.destination]!);
    const size = family === 4 ? 4 : 16;
    for (const leaf of ADDRESS_LEAVES) {
      const n = len[SLOT[leaf]]!;
      if (n !== 0 && n !== size) throw invalid(`${n} bytes, an IPv${family} address has ${size}`, leaf);
    }
    const egress = len[SLOT.egressIp]!;
    if (egress !== 0 && egress !== 4 && egress !== 16) throw invalid(`${egress} bytes is not an IPv4 or IPv6 address`, 'egressIp');

    out.reserve(this.#max + 3 * flowLength + 3 * originBytes.length + 10);
    const o = out.buf;
    const ov = out.view;
    const bv = this.#views.of(b);
    let p = out.pos;
    out.keyStart = p;
    p = this.#writeKey(f, family, size, o, p);
    out.keyEnd = p;
    const overflowed = this.#overflowed;
    overflowed.length = 0;
    for (const x of this.#ops) {
      switch (x.op) {
        case Op.Bytes:
          p = copyBytes(o, ov, p, x.bytes, x.view, 0, x.bytes.length);
          break;
        case Op.OriginAddress:
          p = writeVarint(o, p, originBytes.length * 2);
          for (let i = 0; i < originBytes.length; i++) o[p++] = originBytes[i]!;
          break;
        case Op.OriginPort:
          p = writeLong(o, p, origin.exporterPort);
          break;
        case Op.ReceiveTime:
          p = writeLong(o, p, receiveTime);
          break;
        case Op.Long:
          p = writeLong(o, p, f.num[x.slot]! * x.scale);
          break;
        case Op.Seconds:
          o[p++] = 2;
          p = writeLong(o, p, f.num[x.slot]! * 1000);
          break;
        case Op.Uint:
          o[p++] = 2;
          p = writeLong(o, p, (f.num[x.slot]! & x.mask) >>> 0);
          break;
        case Op.Uint64: {
          const v = f.num[x.slot]!;
          if (v <= MAX_LONG) {
            o[p++] = 2;
            p = writeLong(o, p, v);
          } else {
            o[p++] = 0;
            overflowed.push(x);
          }
          break;
        }
        case Op.String:
          o[p++] = 2;
          if (len[x.slot] === 0) o[p++] = 0;
          else p = writeIpfixString(o, ov, p, b, bv, f.start[x.slot]!, len[x.slot]!);
          break;
        case Op.Address:
          if (x.family !== family) {
            o[p++] = 0;
            break;
          }
          o[p++] = 2;
          if (len[x.slot] === 0) {
            o.fill(0, p, p + size);
            p += size;
          } else p = copyBytes(o, ov, p, b, bv, f.start[x.slot]!, size);
          break;
        case Op.AddressText: {
          const n = len[x.slot]!;
          const text = n === 0 ? '' : n === 4 ? formatIpv4(b, f.start[x.slot]!) : formatIpv6(b, f.start[x.slot]!);
          o[p++] = 2;
          p = writeVarint(o, p, text.length * 2);
          p += o.write(text, p, 'latin1');
          break;
        }
        case Op.Uuid:
          if (len[x.slot] === 36 && writeUuid(b, f.start[x.slot]!, o, p + 1)) {
            o[p] = 2;
            p += 17;
          } else o[p++] = 0;
          break;
        case Op.Extras:
          if (overflowed.length > 0) p = this.#writeExtras(f, o, p);
          o[p++] = 0;
          break;
      }
    }
    out.valueEnd = p;
    out.pos = p;
  }

  /** The flow key (ingest/records/flow-key.ts) from the flow's addresses, copied side by side. */
  #writeKey(f: FlowFields, family: 4 | 6, size: number, o: Uint8Array, p: number): number {
    const k = this.#key.reset(this.#keyBytes);
    const scratch = this.#keyBytes;
    const place = (leaf: Leaf, at: number): number => {
      const slot = SLOT[leaf];
      if (f.length[slot] === 0) scratch.fill(0, at, at + size);
      else scratch.set(f.bytes.subarray(f.start[slot]!, f.start[slot]! + size), at);
      return at;
    };
    const [src, dst, snat] = [place('source', 0), place('destination', 16), place('proxySnatIp', 32)];
    if (family === 4) [k.sourceIPv4, k.destinationIPv4, k.proxySnatIPv4] = [src, dst, snat];
    else [k.sourceIPv6, k.destinationIPv6, k.proxySnatIPv6] = [src, dst, snat];
    k.protocol = f.num[SLOT.protocol]! & 0xff;
    k.sourcePort = f.num[SLOT.sourcePort]! & 0xffff;
    k.destinationPort = f.num[SLOT.destinationPort]! & 0xffff;
    k.proxySnatPort = f.num[SLOT.proxySnatPort]! & 0xffff;
    k.flowType = f.num[SLOT.flowType]! & 0xff;
    k.destinationPodNamed = hasText(f.bytes, f.start[SLOT.destinationPodName]!, f.length[SLOT.destinationPodName]!);
    return writeFlowKey(k, o, p);
  }

  /** The array block of the counters that overflowed, in template order (the mapping's): {pen, id, the 8 bytes big-endian}. */
  #writeExtras(f: FlowFields, o: Uint8Array, p: number): number {
    const overflowed = (this.#overflowed as (Operation & { op: Op.Uint64 })[]).sort((a, b) => a.order - b.order);
    p = writeVarint(o, p, overflowed.length * 2);
    for (const x of overflowed) {
      for (let i = 0; i < x.extra.length; i++) o[p++] = x.extra[i]!;
      o[p++] = 16; // 8 bytes
      for (const word of [f.high[x.slot]!, f.low[x.slot]!]) {
        o[p++] = word >>> 24;
        o[p++] = (word >>> 16) & 0xff;
        o[p++] = (word >>> 8) & 0xff;
        o[p++] = word & 0xff;
      }
    }
    return p;
  }
}
