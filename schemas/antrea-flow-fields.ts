// Reads an Antrea `Flow` from its protobuf bytes (proto3 wire format) into reusable slots, without making
// an object or a string per field: numbers go to a Float64Array, strings and byte fields stay where they are
// in the message, as (start, length). Only the leaves the FlowRecord takes are read (LEAVES); everything else,
// unknown fields included, is skipped by its wire type. The field numbers come from schemas/proto through
// protobufjs's reflection, so the .proto files stay the only list of them.
//
// proto3 semantics: a scalar that is absent reads as its default (0, empty), the last occurrence of a field
// wins, and a sub-message that is absent is empty (Antrea's collector would crash on a missing `ipfix`; this
// one never does). Anything the wire format does not allow (a truncated varint or field, a length beyond the
// message, a wire type that contradicts the schema, a group) throws GRPC_MALFORMED naming the field.
import type protobuf from 'protobufjs';
import { FlowaggError } from '../lib/errors.js';
import { antreaType } from './antrea-proto.js';
import { GRPC_MALFORMED } from './errors.js';

/** How a leaf is read. */
type LeafKind = 'varint' | 'uint64' | 'bytes';

/** The leaves of Flow the FlowRecord needs, as paths of .proto field names. */
export const LEAVES = {
  exportSeconds: 'ipfix.export_time.seconds',
  sequenceNumber: 'ipfix.sequence_number',
  observationDomainId: 'ipfix.observation_domain_id',
  startSeconds: 'start_ts.seconds',
  endSeconds: 'end_ts.seconds',
  endReason: 'end_reason',
  ipVersion: 'ip.version',
  source: 'ip.source',
  destination: 'ip.destination',
  protocol: 'transport.protocol_number',
  sourcePort: 'transport.source_port',
  destinationPort: 'transport.destination_port',
  tcpState: 'transport.TCP.state_name',
  packetTotal: 'stats.packet_total_count',
  packetDelta: 'stats.packet_delta_count',
  octetTotal: 'stats.octet_total_count',
  octetDelta: 'stats.octet_delta_count',
  reversePacketTotal: 'reverse_stats.packet_total_count',
  reversePacketDelta: 'reverse_stats.packet_delta_count',
  reverseOctetTotal: 'reverse_stats.octet_total_count',
  reverseOctetDelta: 'reverse_stats.octet_delta_count',
  flowType: 'k8s.flow_type',
  sourcePodNamespace: 'k8s.source_pod_namespace',
  sourcePodName: 'k8s.source_pod_name',
  sourcePodUid: 'k8s.source_pod_uid',
  sourceNodeName: 'k8s.source_node_name',
  sourceNodeUid: 'k8s.source_node_uid',
  destinationPodNamespace: 'k8s.destination_pod_namespace',
  destinationPodName: 'k8s.destination_pod_name',
  destinationPodUid: 'k8s.destination_pod_uid',
  destinationNodeName: 'k8s.destination_node_name',
  destinationNodeUid: 'k8s.destination_node_uid',
  destinationClusterIp: 'k8s.destination_cluster_ip',
  destinationServicePort: 'k8s.destination_service_port',
  destinationServicePortName: 'k8s.destination_service_port_name',
  destinationServiceUid: 'k8s.destination_service_uid',
  ingressPolicyType: 'k8s.ingress_network_policy_type',
  ingressPolicyNamespace: 'k8s.ingress_network_policy_namespace',
  ingressPolicyName: 'k8s.ingress_network_policy_name',
  ingressPolicyUid: 'k8s.ingress_network_policy_uid',
  ingressPolicyRuleName: 'k8s.ingress_network_policy_rule_name',
  ingressPolicyRuleAction: 'k8s.ingress_network_policy_rule_action',
  egressPolicyType: 'k8s.egress_network_policy_type',
  egressPolicyNamespace: 'k8s.egress_network_policy_namespace',
  egressPolicyName: 'k8s.egress_network_policy_name',
  egressPolicyUid: 'k8s.egress_network_policy_uid',
  egressPolicyRuleName: 'k8s.egress_network_policy_rule_name',
  egressPolicyRuleAction: 'k8s.egress_network_policy_rule_action',
  egressName: 'k8s.egress_name',
  egressIp: 'k8s.egress_ip',
  egressNodeName: 'k8s.egress_node_name',
  egressNodeUid: 'k8s.egress_node_uid',
  egressUid: 'k8s.egress_uid',
  destinationServiceIp: 'k8s.destination_service_ip',
  proxySnatIp: 'proxy_snat_ip',
  proxySnatPort: 'proxy_snat_port',
} as const;

export type Leaf = keyof typeof LEAVES;

/** Slot numbers: one per leaf, in LEAVES order. */
export const SLOT = Object.fromEntries(Object.keys(LEAVES).map((k, i) => [k, i])) as Readonly<Record<Leaf, number>>;
const SLOT_COUNT = Object.keys(LEAVES).length;

/** A value above this is not exact in a JS number (2^53). */
const TWO32 = 4294967296;

/**
 * The leaves of one Flow. For a varint leaf `num` holds the value's low 32 bits as read (enums, uint32, and
 * the int64 seconds of a Timestamp, which Antrea truncates to uint32 anyway); for a uint64 leaf the value,
 * with `high` and `low` its two 32-bit halves so that values beyond 2^53 can be written exactly; for a bytes leaf `start`
 * and `length` in `bytes`.
 */
export class FlowFields {
  bytes: Uint8Array = new Uint8Array(0);
  readonly num = new Float64Array(SLOT_COUNT);
  readonly high = new Uint32Array(SLOT_COUNT);
  readonly low = new Uint32Array(SLOT_COUNT);
  readonly start = new Int32Array(SLOT_COUNT);
  readonly length = new Int32Array(SLOT_COUNT);

  reset(bytes: Uint8Array): this {
    this.bytes = bytes;
    this.num.fill(0);
    this.high.fill(0);
    this.low.fill(0);
    this.length.fill(0);
    return this;
  }
}

// ---- the decode tables, built from the schema ----

interface FieldAction {
  readonly name: string;
  readonly wireType: 0 | 2;
  readonly leaf?: { readonly slot: number; readonly kind: LeafKind };
  readonly message?: MessageTable;
}

/** A message type's actions, indexed by field number; fields nobody reads have none (skipped). */
type MessageTable = readonly (FieldAction | undefined)[];

const SCALAR_KINDS: Readonly<Record<string, LeafKind>> = {
  uint32: 'varint', int32: 'varint', int64: 'varint', bool: 'varint', uint64: 'uint64', string: 'bytes', bytes: 'bytes',
};

/** One table per path (not per type: stats and reverse_stats are both Stats, with different slots). */
function buildTables(): MessageTable {
  const root: (FieldAction | undefined)[] = [];
  Object.entries(LEAVES).forEach(([leaf, path], slot) => {
    let type = antreaType('Flow');
    let table = root;
    const parts = path.split('.');
    parts.forEach((name, i) => {
      const field = type.fields[name];
      if (field === undefined) throw new Error(`flow-fields: ${path}: no field ${name} in ${type.name}`);
      field.resolve();
      if (i < parts.length - 1) {
        const action = (table[field.id] ??= { name, wireType: 2, message: [] });
        table = action.message as (FieldAction | undefined)[];
        type = field.resolvedType as protobuf.Type;
        return;
      }
      const kind = field.resolvedType !== null ? 'varint' : SCALAR_KINDS[field.type];
      if (kind === undefined) throw new Error(`flow-fields: ${path}: type ${field.type} is not read`);
      table[field.id] = { name: leaf, wireType: kind === 'bytes' ? 2 : 0, leaf: { slot, kind } };
    });
  });
  return root;
}

const FLOW_TABLE = buildTables();

// ---- the wire reader ----

function malformed(why: string, field: string, offset: number): FlowaggError {
  return new FlowaggError(GRPC_MALFORMED, `malformed Flow: ${field}: ${why} at byte ${offset}`, { context: { field, offset } });
}

/** The varint at b[p]: low 32 bits in `lo`, high in `hi`, position after it in `p`. */
class VarintReader {
  lo = 0;
  hi = 0;
  p = 0;

  read(b: Uint8Array, p: number, end: number, field: string): void {
    let lo = 0;
    let hi = 0;
    let shift = 0;
    const start = p;
    for (;;) {
      if (p >= end) throw malformed('truncated varint', field, start);
      const c = b[p++]!;
      if (shift < 28) lo |= (c & 0x7f) << shift;
      else if (shift === 28) {
        lo |= (c & 0x0f) << 28;
        hi = (c & 0x7f) >>> 4;
      } else if (shift < 64) hi |= (c & 0x7f) << (shift - 32);
      if ((c & 0x80) === 0) break;
      shift += 7;
      if (shift >= 70) throw malformed('varint longer than 10 bytes', field, start);
    }
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
    this.p = p;
  }
}

const varint = new VarintReader();

/** Skips a field of an unread number; returns the position after it. */
function skip(b: Uint8Array, p: number, end: number, wireType: number, fieldNumber: number): number {
  const field = `field ${fieldNumber}`;
  switch (wireType) {
    case 0:
      varint.read(b, p, end, field);
      return varint.p;
    case 1:
      if (p + 8 > end) throw malformed('truncated fixed64', field, p);
      return p + 8;
    case 2: {
      varint.read(b, p, end, field);
      const next = varint.p + varint.lo;
      if (varint.hi !== 0 || next > end) throw malformed('length beyond the message', field, p);
      return next;
    }
    case 5:
      if (p + 4 > end) throw malformed('truncated fixed32', field, p);
      return p + 4;
    default:
      throw malformed(`wire type ${wireType} (groups are not proto3)`, field, p);
  }
}

/** The last tag read by readTag. */
const tag = { fieldNumber: 0, wireType: 0 };

/** Reads the tag at b[p] into `tag`; returns the position after it. */
function readTag(b: Uint8Array, p: number, end: number): number {
  varint.read(b, p, end, 'tag');
  tag.fieldNumber = (varint.lo >>> 3) + varint.hi * 0x20000000;
  tag.wireType = varint.lo & 7;
  if (tag.fieldNumber === 0) throw malformed('field number 0', 'tag', p);
  return varint.p;
}

function readMessage(table: MessageTable, b: Uint8Array, p: number, end: number, out: FlowFields): void {
  while (p < end) {
    const tagAt = p;
    // Tags of one byte (fields 1 to 15) and lengths or values below 128, the common case, are read inline.
    let fieldNumber: number;
    let wireType: number;
    const first = b[p]!;
    if (first < 0x80 && first >= 8) {
      fieldNumber = first >>> 3;
      wireType = first & 7;
      p++;
    } else {
      p = readTag(b, p, end);
      fieldNumber = tag.fieldNumber;
      wireType = tag.wireType;
    }
    const action = table[fieldNumber];
    if (action === undefined) {
      p = skip(b, p, end, wireType, fieldNumber);
      continue;
    }
    if (wireType !== action.wireType) throw malformed(`wire type ${wireType}, the schema says ${action.wireType}`, action.name, tagAt);
    let lo: number;
    let hi = 0;
    if (p < end && b[p]! < 0x80) lo = b[p++]!;
    else {
      varint.read(b, p, end, action.name);
      p = varint.p;
      lo = varint.lo;
      hi = varint.hi;
    }
    const leaf = action.leaf;
    if (wireType === 2) {
      if (hi !== 0 || p + lo > end) throw malformed('length beyond the message', action.name, tagAt);
      if (leaf !== undefined) {
        out.start[leaf.slot] = p;
        out.length[leaf.slot] = lo;
      } else {
        readMessage(action.message!, b, p, p + lo, out);
      }
      p += lo;
    } else {
      const slot = leaf!.slot;
      if (leaf!.kind === 'uint64') {
        out.num[slot] = hi * TWO32 + lo;
        out.high[slot] = hi;
        out.low[slot] = lo;
      } else {
        out.num[slot] = lo;
      }
    }
  }
}

/** Reads the Flow in b[start, end) into `out` (reset first). Throws GRPC_MALFORMED. */
export function readFlow(b: Uint8Array, start: number, end: number, out: FlowFields): FlowFields {
  out.reset(b);
  readMessage(FLOW_TABLE, b, start, end, out);
  return out;
}

/** Number of ExportRequest.flows, a repeated Flow. */
const FLOWS_FIELD = antreaType('ExportRequest').fields.flows!.id;

/**
 * Calls `each(start, end)` for every Flow of an ExportRequest, in order; other fields are skipped. Throws
 * GRPC_MALFORMED on a wire error, after the flows before it were handed over.
 */
export function forEachFlow(b: Uint8Array, each: (start: number, end: number) => void): number {
  let p = 0;
  let count = 0;
  const end = b.length;
  while (p < end) {
    const tagAt = p;
    p = readTag(b, p, end);
    const { fieldNumber, wireType } = tag;
    if (fieldNumber !== FLOWS_FIELD) {
      p = skip(b, p, end, wireType, fieldNumber);
      continue;
    }
    if (wireType !== 2) throw malformed(`wire type ${wireType}, the schema says 2`, 'flows', tagAt);
    varint.read(b, p, end, 'flows');
    const length = varint.lo;
    p = varint.p;
    if (varint.hi !== 0 || p + length > end) throw malformed('length beyond the message', 'flows', tagAt);
    each(p, p + length);
    count++;
    p += length;
  }
  return count;
}
