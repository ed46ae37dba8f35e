// A decoder-neutral view of one softflowd flow record, so that records decoded by tshark and by flowagg
// can be checked against the generated traffic (softflowd-flows.ts) with one deepEqual.
// Input fields carry normalised values: integers as bigint, addresses as text, absolute times as bigint
// nanoseconds since the epoch, sysUpTime as bigint milliseconds.
import type { ExpectedCounters, ExpectedRecord } from './softflowd-flows.js';
import { REVERSE_PEN } from './tshark-fields.js';

export interface NormalizedField {
  readonly pen: number;
  readonly id: number;
  readonly value: bigint | string;
}

const IE = {
  octets: 1,
  packets: 2,
  protocol: 4,
  tos: 5,
  tcpFlags: 6,
  srcPort: 7,
  srcV4: 8,
  dstPort: 11,
  dstV4: 12,
  endUpTime: 21,
  startUpTime: 22,
  srcV6: 27,
  dstV6: 28,
  icmpV4: 32,
  ipVersion: 60,
  icmpV6: 139,
  systemInitTimeMilliseconds: 160,
} as const;
const START_ABSOLUTE = [150, 152, 154, 156];
const END_ABSOLUTE = [151, 153, 155, 157];

/** systemInitTimeMilliseconds from softflowd's options record, when `fields` is that record. */
export function systemInitMs(fields: readonly NormalizedField[]): bigint | undefined {
  const f = fields.find((x) => x.pen === 0 && x.id === IE.systemInitTimeMilliseconds);
  return f === undefined ? undefined : (f.value as bigint) / 1_000_000n;
}

function toUs(f: NormalizedField, initMs: bigint | undefined): number {
  const v = f.value as bigint;
  if (f.id === IE.startUpTime || f.id === IE.endUpTime) {
    if (initMs === undefined) throw new RangeError('sysUpTime record before any systemInitTimeMilliseconds');
    return Number((initMs + v) * 1000n);
  }
  return Number((v + 500n) / 1000n);
}

/**
 * The flow a softflowd data record describes, or undefined for records without addresses (its options
 * record). `initMs` turns sysUpTime values into absolute times.
 */
export function flowView(fields: readonly NormalizedField[], initMs?: bigint): ExpectedRecord | undefined {
  const fwd = new Map<number, NormalizedField>();
  const rev = new Map<number, NormalizedField>();
  for (const f of fields) {
    if (f.pen === 0) fwd.set(f.id, f);
    else if (f.pen === REVERSE_PEN) rev.set(f.id, f);
  }
  const src = fwd.get(IE.srcV4) ?? fwd.get(IE.srcV6);
  const dst = fwd.get(IE.dstV4) ?? fwd.get(IE.dstV6);
  if (src === undefined || dst === undefined) return undefined;
  const num = (m: Map<number, NormalizedField>, ...ids: number[]) => {
    const f = ids.map((id) => m.get(id)).find((x) => x !== undefined);
    return f === undefined ? 0 : Number(f.value);
  };
  const time = (ids: readonly number[]) => {
    const f = ids.map((id) => fwd.get(id)).find((x) => x !== undefined);
    if (f === undefined) throw new RangeError(`flow record without a time element (${ids.join('/')})`);
    return toUs(f, initMs);
  };
  const counters = (m: Map<number, NormalizedField>): ExpectedCounters => ({
    octets: num(m, IE.octets),
    packets: num(m, IE.packets),
    tcpFlags: num(m, IE.tcpFlags),
    tos: num(m, IE.tos),
    icmpTypeCode: num(m, IE.icmpV4, IE.icmpV6),
  });
  return {
    ipVersion: num(fwd, IE.ipVersion) as 4 | 6,
    proto: num(fwd, IE.protocol),
    src: String(src.value),
    dst: String(dst.value),
    srcPort: num(fwd, IE.srcPort),
    dstPort: num(fwd, IE.dstPort),
    startUs: time([IE.startUpTime, ...START_ABSOLUTE]),
    endUs: time([IE.endUpTime, ...END_ABSOLUTE]),
    ...counters(fwd),
    ...(rev.size > 0 ? { reverse: counters(rev) } : {}),
  };
}

/** Records in a canonical order, so that two lists of the same flows compare equal. */
export function sortRecords(records: readonly ExpectedRecord[]): ExpectedRecord[] {
  const key = (r: ExpectedRecord) =>
    [r.src, r.dst, r.srcPort, r.dstPort, r.proto, r.startUs, r.endUs, r.octets, r.packets, r.reverse?.octets, r.reverse?.packets].join('|');
  return [...records].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
