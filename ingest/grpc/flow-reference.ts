// The reference path from a gRPC Flow to a FlowRecord: protobufjs decodes the message into an object, the
// mapping table (flow-mapping.ts) is applied to its values one field at a time, and avsc encodes the record.
// Slow and obviously right; the fast transcoder (flow-transcode.ts) must give the same bytes.
import { FlowaggError } from '../../lib/errors.js';
import { formatIpv4, formatIpv6 } from '../../lib/ipfix/text.js';
import { antreaType } from '../../schemas/antrea-proto.js';
import { type FlowRecord, flowRecordWriter } from '../../schemas/flow-record.js';
import { MAX_LONG } from '../../schemas/avro-binary.js';
import { type EncodedFlowRecord, encodeFlowRecord } from '../records/build.js';
import { GRPC_MALFORMED } from '../../schemas/errors.js';
import { GRPC_INVALID_FLOW } from './errors.js';
import { type Leaf, LEAVES } from '../../schemas/antrea-flow-fields.js';
import { ADDRESS_LEAVES, FLOW_MAPPING, flowFamily, PROVENANCE_LEAVES, uuidBytes } from '../../schemas/antrea-flow-mapping.js';
import type { GrpcOrigin } from './flow-transcode.js';

const FlowType = antreaType('Flow');
const EMPTY = Buffer.alloc(0);

/** A decoded Flow as plain values: uint64 as bigint, bytes as Buffer, absent leaves undefined. */
export type DecodedFlow = Record<string, unknown>;

export function decodeFlow(bytes: Uint8Array): DecodedFlow {
  try {
    return FlowType.toObject(FlowType.decode(bytes), { longs: String, enums: Number, bytes: Buffer }) as DecodedFlow;
  } catch (cause) {
    throw new FlowaggError(GRPC_MALFORMED, `malformed Flow: ${String(cause)}`, { cause });
  }
}

function leafValue(flow: DecodedFlow, leaf: Leaf): unknown {
  let v: unknown = flow;
  for (const name of LEAVES[leaf].split('.')) v = (v as Record<string, unknown> | undefined)?.[name];
  return v;
}

const num = (v: unknown) => (v === undefined ? 0 : Number(v));
/** Go's uint32(v): the low 32 bits (of an int64 Timestamp's seconds too). */
const uint32 = (v: unknown) => Number(BigInt.asUintN(32, BigInt(v === undefined ? 0 : (v as string | number))));
const bytesOf = (v: unknown) => (v === undefined ? EMPTY : (v as Buffer));

/** The FlowRecord of a decoded Flow received from `origin` at `receiveTime`. */
export function referenceRecord(flow: DecodedFlow, origin: GrpcOrigin, receiveTime: number): FlowRecord {
  const source = bytesOf(leafValue(flow, 'source'));
  const family = flowFamily(num(leafValue(flow, 'ipVersion')), source.length, bytesOf(leafValue(flow, 'destination')).length);
  const size = family === 4 ? 4 : 16;
  for (const leaf of ADDRESS_LEAVES) {
    const n = bytesOf(leafValue(flow, leaf)).length;
    if (n !== 0 && n !== size) throw new FlowaggError(GRPC_INVALID_FLOW, `invalid Flow: ${LEAVES[leaf]}: ${n} bytes, an IPv${family} address has ${size}`);
  }
  const record: Record<string, unknown> = {
    exporterAddress: origin.exporterAddress, exporterPort: origin.exporterPort, transport: 'grpc', templateId: 0, receiveTime,
    flowStartSource: 'seconds', flowEndSource: 'seconds', extras: [],
  };
  for (const [field, leaf] of Object.entries(PROVENANCE_LEAVES)) record[field] = uint32(leafValue(flow, leaf)) * (field === 'exportTime' ? 1000 : 1);
  const extras: { pen: number; id: number; value: Buffer }[] = [];
  for (const { field, leaf, conversion: c } of FLOW_MAPPING) {
    const v = leafValue(flow, leaf);
    switch (c.kind) {
      case 'seconds':
        record[field] = uint32(v) * 1000;
        break;
      case 'uint':
        record[field] = Number(BigInt.asUintN(c.bits, BigInt(num(v))));
        break;
      case 'uint64': {
        const big = BigInt(v === undefined ? 0 : (v as string));
        if (big <= BigInt(MAX_LONG)) record[field] = Number(big);
        else {
          record[field] = null;
          const value = Buffer.alloc(8);
          value.writeBigUInt64BE(big);
          extras.push({ pen: c.pen, id: c.id, value });
        }
        break;
      }
      case 'string':
        record[field] = ((v as string | undefined) ?? '').replace(/\0+$/, '');
        break;
      case 'address': {
        const b = bytesOf(v);
        record[field] = c.family !== family ? null : b.length === 0 ? Buffer.alloc(size) : b;
        break;
      }
      case 'addressText': {
        const b = bytesOf(v);
        if (b.length !== 0 && b.length !== 4 && b.length !== 16) throw new FlowaggError(GRPC_INVALID_FLOW, `invalid Flow: ${LEAVES[leaf]}: ${b.length} bytes is not an IPv4 or IPv6 address`);
        record[field] = b.length === 0 ? '' : b.length === 4 ? formatIpv4(b, 0) : formatIpv6(b, 0);
        break;
      }
      case 'uuid':
        record[field] = uuidBytes((v as string | undefined) ?? '') ?? null;
        break;
    }
  }
  record.extras = extras;
  return record as FlowRecord;
}

const writer = flowRecordWriter();

/** The reference encoding of one Flow's bytes: key and framed value. */
export function referenceEncode(bytes: Uint8Array, origin: GrpcOrigin, receiveTime: number): EncodedFlowRecord & { record: FlowRecord } {
  const record = referenceRecord(decodeFlow(bytes), origin, receiveTime);
  return { ...encodeFlowRecord(record, writer), record };
}
