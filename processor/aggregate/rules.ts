// Antrea's aggregation rules (reference §5.5, the in-tree "(B)" behaviour) as operations on one flow's
// row in the store: a new flow from its first record, the correlation copy, and the aggregation of a
// further record. Pure: the store and the scanned record in, the row changed, nothing else.
//
// Times are in milliseconds (Antrea's are whole seconds; agents send seconds, so every comparison and
// integer throughput comes out the same). Throughputs are integer bits per second.
import { fieldIndex, type ScannedRecord } from '../../schemas/flow-record-scanner.js';
import { END_OF_FLOW, FLOW_TYPE_FROM_EXTERNAL, isFromExternalIngressHalf, isSetBytes, R } from '../record-input.js';
import {
  ADDRESS_FAMILY_FIELDS, ADDRESS_FIELDS, DELTA_FIELDS, DIRTY_IDENTITY, DIRTY_STATS, F_DELTA, F_END, F_NODE_END, F_START, F_THROUGHPUT, F_TOTAL, F_WIDTH,
  I_ADDRESS, I_SERVICE_PORT, I_SNAT_IP, I_SNAT_PORT, I_SOURCE_ADDRESS, I_SOURCE_PORT, I_TCP_STATE, I_UUID, I_WIDTH, METRIC_COUNT, S_DELTA, S_END,
  S_THROUGHPUT, S_TOTAL, sideBase, SMALL_INT_FIELDS, TEXT_FIELDS, TOTAL_FIELDS, U_END_SOURCE, U_FLOW_END_REASON, U_FLOW_TYPE, U_START_SOURCE, U_WIDTH, UUID_FIELDS,
} from './columns.js';
import type { FlowStore } from './store.js';

const IN_TOTAL = TOTAL_FIELDS.map(fieldIndex);
const IN_DELTA = DELTA_FIELDS.map(fieldIndex);
const IN_TEXT = TEXT_FIELDS.map(fieldIndex);
const IN_UUID = UUID_FIELDS.map(fieldIndex);
const IN_ADDRESS = ADDRESS_FIELDS.map((name) => ADDRESS_FAMILY_FIELDS[name].map(fieldIndex) as [number, number]);
const IN_SMALL = SMALL_INT_FIELDS.map(([column, field]) => [column, fieldIndex(field)] as const);
const IN_SERVICE_PORT = fieldIndex('destinationServicePort');
const IN_TCP_STATE = fieldIndex('tcpState');
/**
 * Text columns the correlation copies: every one but tcpState (aggregated), the labels (looked up) and the
 * Egress ones, which Antrea's correlateRecords leaves as the first half set them.
 */
const NOT_CORRELATED_TEXT: readonly string[] = ['tcpState', 'sourcePodLabels', 'destinationPodLabels', 'egressName', 'egressIP', 'egressNodeName'];
const CORRELATED_TEXT = TEXT_FIELDS.map((_, c) => c).filter((c) => !NOT_CORRELATED_TEXT.includes(TEXT_FIELDS[c]!));
/** The policy enums: flowType is the first half's (or FROM_EXTERNAL's), flowEndReason is aggregated, not copied. */
const CORRELATED_SMALL = IN_SMALL.filter(([column]) => column !== U_FLOW_TYPE && column !== U_FLOW_END_REASON);

/** Integer bits per second of `octets` over `ms`, floored as Antrea's integer division is; 0 unless both are positive. */
export function bitsPerSecond(octets: number, ms: number): number {
  if (!(octets > 0 && ms > 0)) return 0;
  const bits = octets * 8000;
  if (bits <= Number.MAX_SAFE_INTEGER) {
    let q = Math.floor(bits / ms);
    // Float division may round up across an integer; the exact quotient satisfies q * ms <= bits < (q + 1) * ms.
    if (q * ms > bits) q--;
    else if ((q + 1) * ms <= bits) q++;
    return q;
  }
  return Number((BigInt(octets) * 8000n) / BigInt(ms));
}

/** The field holding the record's address of a column's two family fields: the IPv4 one if set, else the IPv6 one; -1 for neither. */
function addressField(r: ScannedRecord, [v4, v6]: readonly [number, number]): number {
  return isSetBytes(r, v4) ? v4 : isSetBytes(r, v6) ? v6 : -1;
}

/** `field` when the record has it set (not null, not all zeros), else -1. */
const ifSet = (r: ScannedRecord, field: number) => (isSetBytes(r, field) ? field : -1);

/** Sets a column of bytes (an address or UUID) to the record's `field` as it is, to none for -1. */
function setBytes(store: FlowStore, slot: number, column: number, r: ScannedRecord, field: number): void {
  store.setInternedBytes(slot, column, 'latin1', r.buf, field < 0 ? 0 : r.start[field]!, field < 0 ? 0 : r.length[field]!);
}

/** An optional enum field as its symbol index + 1, 0 when null. */
function symbolPlusOne(r: ScannedRecord, field: number): number {
  const v = r.num[field]!;
  return v === v ? v + 1 : 0;
}

/** Sets a text column to the record's string field (empty when null); returns whether it changed. */
function setText(store: FlowStore, slot: number, column: number, r: ScannedRecord, field: number): boolean {
  const start = r.start[field]!;
  return store.setInternedBytes(slot, column, 'utf8', r.buf, start, start < 0 ? 0 : r.length[field]!);
}

/** Whether the flow's text column holds the record's string field (both empty when it is null). */
function holdsText(store: FlowStore, slot: number, column: number, r: ScannedRecord, field: number): boolean {
  const start = r.start[field]!;
  return store.pool.holds(store.i32[slot * I_WIDTH + column]!, 'utf8', r.buf, start, start < 0 ? 0 : r.length[field]!);
}

/** The record's own source address and port, when its key says otherwise (the FROM_EXTERNAL ingress half). */
function takeRealSource(store: FlowStore, slot: number, r: ScannedRecord): void {
  setBytes(store, slot, I_SOURCE_ADDRESS, r, addressField(r, [R.sourceIPv4, R.sourceIPv6]));
  store.i32[slot * I_WIDTH + I_SOURCE_PORT] = r.num0(R.sourcePort);
}

/**
 * A new flow from its first record (§5.5 "K is not in the map"): the record is the base, every field
 * taken as it is; the per-Node block of each filled side gets its counters and flow end; throughput from
 * the record's totals over its duration. `node` is the side of the Node that reported it.
 */
export function createFlow(store: FlowStore, slot: number, r: ScannedRecord, fill: readonly number[], node: number): void {
  const f = store.f64;
  const at = slot * F_WIDTH;
  const start = r.num0(R.flowStart);
  const end = r.num0(R.flowEnd);
  f[at + F_START] = start;
  f[at + F_END] = end;
  f[at + F_NODE_END + node] = end;
  f[at + F_NODE_END + 1 - node] = 0;
  for (let m = 0; m < METRIC_COUNT; m++) {
    f[at + F_TOTAL + m] = r.num0(IN_TOTAL[m]!);
    f[at + F_DELTA + m] = r.num0(IN_DELTA[m]!);
  }
  const duration = end - start;
  f[at + F_THROUGHPUT] = bitsPerSecond(f[at + F_TOTAL]!, duration);
  f[at + F_THROUGHPUT + 1] = bitsPerSecond(f[at + F_TOTAL + 2]!, duration);
  for (const side of fill) {
    const s = at + sideBase(side);
    for (let m = 0; m < METRIC_COUNT; m++) {
      f[s + S_TOTAL + m] = f[at + F_TOTAL + m]!;
      f[s + S_DELTA + m] = f[at + F_DELTA + m]!;
    }
    f[s + S_THROUGHPUT] = f[at + F_THROUGHPUT]!;
    f[s + S_THROUGHPUT + 1] = f[at + F_THROUGHPUT + 1]!;
    f[s + S_END] = end;
  }
  for (let c = 0; c < IN_TEXT.length; c++) setText(store, slot, c, r, IN_TEXT[c]!);
  for (let c = 0; c < IN_UUID.length; c++) setBytes(store, slot, I_UUID + c, r, ifSet(r, IN_UUID[c]!));
  for (let c = 0; c < IN_ADDRESS.length; c++) setBytes(store, slot, I_ADDRESS + c, r, addressField(r, IN_ADDRESS[c]!));
  const u = slot * U_WIDTH;
  for (const [column, field] of IN_SMALL) store.u8[u + column] = r.num0(field);
  store.u8[u + U_START_SOURCE] = symbolPlusOne(r, R.flowStartSource);
  store.u8[u + U_END_SOURCE] = symbolPlusOne(r, R.flowEndSource);
  const i = slot * I_WIDTH;
  store.i32[i + I_SERVICE_PORT] = r.num0(IN_SERVICE_PORT);
  store.i32[i + I_SNAT_PORT] = r.num0(R.proxySnatPort);
  if (isFromExternalIngressHalf(r)) takeRealSource(store, slot, r);
  store.markDirty(slot, DIRTY_STATS | DIRTY_IDENTITY);
}

/**
 * The correlation copy (§5.5 `correlateRecords`): every correlated field the record has set (non-empty
 * text, non-zero number, non-zero address or UUID) replaces the flow's, the others stay, so Pods, Nodes,
 * Service and policies do not depend on which half came first. flowEndReason and the Egress names and IP
 * are not copied, as in Antrea: they stay the first half's (flowEndReason then follows the aggregation
 * rule, which keeps END_OF_FLOW). The FROM_EXTERNAL ingress half brings the external client as the source
 * and the SNAT address and port.
 */
export function correlate(store: FlowStore, slot: number, r: ScannedRecord): void {
  for (const c of CORRELATED_TEXT) if (r.hasText(IN_TEXT[c]!)) setText(store, slot, c, r, IN_TEXT[c]!);
  for (let c = 0; c < IN_UUID.length; c++) {
    const field = ifSet(r, IN_UUID[c]!);
    if (field >= 0) setBytes(store, slot, I_UUID + c, r, field);
  }
  for (let c = 0; c < IN_ADDRESS.length; c++) {
    const field = I_ADDRESS + c === I_SNAT_IP ? -1 : addressField(r, IN_ADDRESS[c]!);
    if (field >= 0) setBytes(store, slot, I_ADDRESS + c, r, field);
  }
  const u = slot * U_WIDTH;
  for (const [column, field] of CORRELATED_SMALL) {
    const v = r.num0(field);
    if (v !== 0) store.u8[u + column] = v;
  }
  const i = slot * I_WIDTH;
  const servicePort = r.num0(IN_SERVICE_PORT);
  if (servicePort !== 0) store.i32[i + I_SERVICE_PORT] = servicePort;
  if (isFromExternalIngressHalf(r)) {
    takeRealSource(store, slot, r);
    setBytes(store, slot, I_SNAT_IP, r, addressField(r, IN_ADDRESS[I_SNAT_IP - I_ADDRESS]!));
    store.i32[i + I_SNAT_PORT] = r.num0(R.proxySnatPort);
    store.u8[u + U_FLOW_TYPE] = FLOW_TYPE_FROM_EXTERNAL;
  }
  store.markDirty(slot, DIRTY_STATS | DIRTY_IDENTITY);
}

/**
 * Aggregates a further record into the flow (§5.5 `aggregateRecords`), for the per-Node sides it fills
 * (its own side for a correlated flow, both for one that needs no correlation). Returns false when the
 * record is stale: its flow end is not after the previous one from the same Node (`node`, its side), and it
 * is ignored entirely. Antrea keeps one previous flow end per side, which for a flow that needs no
 * correlation is whichever Node reported last, so a record of one Node after a later-ending one of the
 * other is dropped there; and it overwrites that flow end first, so it can move backwards. flowagg does
 * neither.
 */
export function aggregate(store: FlowStore, slot: number, r: ScannedRecord, fill: readonly number[], node: number): boolean {
  const f = store.f64;
  const at = slot * F_WIDTH;
  const start = r.num0(R.flowStart);
  const end = r.num0(R.flowEnd);
  if (end <= (f[at + F_NODE_END + node]! || start)) return false;
  f[at + F_NODE_END + node] = end;
  const latest = end >= f[at + F_END]!;
  if (latest) f[at + F_END] = end;
  const reason = slot * U_WIDTH + U_FLOW_END_REASON;
  if (store.u8[reason] !== END_OF_FLOW) store.u8[reason] = r.num0(R.flowEndReason);
  // tcpState seldom changes: compared as bytes, a string is made only when it did.
  if (latest && !holdsText(store, slot, I_TCP_STATE, r, IN_TCP_STATE) && setText(store, slot, I_TCP_STATE, r, IN_TCP_STATE)) store.markDirty(slot, DIRTY_IDENTITY);
  let last = -1;
  for (const side of fill) {
    const s = at + sideBase(side);
    const previous = f[s + S_END]! || start;
    const elapsed = end - previous;
    const octets = r.num0(IN_TOTAL[0]!) - f[s + S_TOTAL]!;
    const reverseOctets = r.num0(IN_TOTAL[2]!) - f[s + S_TOTAL + 2]!;
    for (let m = 0; m < METRIC_COUNT; m++) {
      f[s + S_TOTAL + m] = r.num0(IN_TOTAL[m]!);
      f[s + S_DELTA + m] = f[s + S_DELTA + m]! + r.num0(IN_DELTA[m]!);
    }
    f[s + S_END] = end;
    f[s + S_THROUGHPUT] = bitsPerSecond(octets, elapsed);
    f[s + S_THROUGHPUT + 1] = bitsPerSecond(reverseOctets, elapsed);
    last = s;
  }
  // Common stats from the latest record only: the totals of the Node that reported it (the destination
  // Node's when both sides are filled), its accumulated deltas (both Nodes saw the same packets), its throughput.
  if (latest) {
    for (let m = 0; m < METRIC_COUNT; m++) {
      f[at + F_TOTAL + m] = Math.max(f[at + F_TOTAL + m]!, f[last + S_TOTAL + m]!);
      f[at + F_DELTA + m] = f[last + S_DELTA + m]!;
    }
    f[at + F_THROUGHPUT] = f[last + S_THROUGHPUT]!;
    f[at + F_THROUGHPUT + 1] = f[last + S_THROUGHPUT + 1]!;
  }
  store.markDirty(slot, DIRTY_STATS);
  return true;
}

/** After an export: deltas and throughputs back to 0, common and per Node; totals stay (the next throughput needs them). */
export function resetAfterExport(store: FlowStore, slot: number): void {
  const f = store.f64;
  const at = slot * F_WIDTH;
  f.fill(0, at + F_DELTA, at + F_THROUGHPUT + 2);
  for (let side = 0; side < 2; side++) {
    const s = at + sideBase(side);
    f.fill(0, s + S_DELTA, s + S_THROUGHPUT + 2);
  }
  store.markDirty(slot, DIRTY_STATS);
}
