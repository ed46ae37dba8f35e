// What softflowd 1.1.0 exports for generated conversations (traffic.ts), so that tests can check every
// record against the traffic that produced it. The rules, read from its ipfix.c and confirmed by runs:
// - A flow's two ends are ordered by address (memcmp): "side 0" is the lower address.
// - TCP and UDP: one flow per conversation. ICMP: the type/code is part of the flow key, so an echo
//   request and its reply are two flows.
// - Flow start/end are those of the whole flow (both directions), also in per-direction records.
// - ToS is taken from the packet that created the flow: the other direction reports 0. For IPv6 it is
//   always 0 (1.1.0 does not read the traffic class; later versions do).
// - Without -b: one record per direction that saw packets, src/dst as that direction sends.
// - With -b: one record per flow oriented side 0 -> side 1, with RFC 5103 reverse counters, flags and
//   ToS for side 1 -> side 0 (zero when a side sent nothing). Both the forward and the reverse
//   icmpTypeCode carry the type/code of side 0's packets (0 when side 0 sent none): softflowd writes
//   port[1] into both.
import { addressBytes } from './packets.js';
import type { SoftflowdTimeFormat } from './softflowd.js';
import type { ConversationFlows, DirectionFlow, FlowTuple } from './traffic.js';

export interface ExpectedCounters {
  readonly octets: number;
  readonly packets: number;
  readonly tcpFlags: number;
  readonly tos: number;
  readonly icmpTypeCode: number;
}

export interface ExpectedRecord extends ExpectedCounters, FlowTuple {
  /** Capture times (µs since the epoch) of the flow's first and last packet. */
  readonly startUs: number;
  readonly endUs: number;
  /** Present in bidirectional (-b) records only. */
  readonly reverse?: ExpectedCounters;
}

interface MeterFlow {
  /** Packets from the lower address to the higher one, and back. */
  readonly up: DirectionFlow | undefined;
  readonly down: DirectionFlow | undefined;
}

function compareAddresses(a: string, b: string): number {
  const x = addressBytes(a);
  const y = addressBytes(b);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return 0;
}

function meterFlows(c: ConversationFlows): MeterFlow[] {
  const { forward, reverse } = c;
  const order = compareAddresses(forward.src, forward.dst);
  if (order === 0) throw new RangeError(`conversation ${forward.src} -> ${forward.dst}: both ends share an address, which these expectations do not model`);
  const orient = (d: DirectionFlow | undefined, isForward: boolean): MeterFlow =>
    (order < 0) === isForward ? { up: d, down: undefined } : { up: undefined, down: d };
  if (forward.proto === 1 || forward.proto === 58) {
    return [orient(forward, true), ...(reverse === undefined ? [] : [orient(reverse, false)])];
  }
  return order < 0 ? [{ up: forward, down: reverse }] : [{ up: reverse, down: forward }];
}

const NO_PACKETS: ExpectedCounters = { octets: 0, packets: 0, tcpFlags: 0, tos: 0, icmpTypeCode: 0 };

function flowRecords(flow: MeterFlow, bidirectional: boolean): ExpectedRecord[] {
  const sides = [flow.up, flow.down].filter((d): d is DirectionFlow => d !== undefined);
  const startUs = Math.min(...sides.map((d) => d.firstUs));
  const endUs = Math.max(...sides.map((d) => d.lastUs));
  const counters = (d: DirectionFlow | undefined): ExpectedCounters =>
    d === undefined
      ? NO_PACKETS
      : { octets: d.octets, packets: d.packets, tcpFlags: d.tcpFlags, tos: d.firstUs === startUs && d.ipVersion === 4 ? d.tos : 0, icmpTypeCode: d.icmpTypeCode };
  const record = (d: DirectionFlow, own: ExpectedCounters): ExpectedRecord => ({
    ipVersion: d.ipVersion,
    proto: d.proto,
    src: d.src,
    dst: d.dst,
    srcPort: d.srcPort,
    dstPort: d.dstPort,
    startUs,
    endUs,
    ...own,
  });
  if (!bidirectional) return sides.map((d) => record(d, counters(d)));

  const some = sides[0] as DirectionFlow;
  const up = flow.up ?? { ...some, src: some.dst, dst: some.src, srcPort: some.dstPort, dstPort: some.srcPort };
  const icmpTypeCode = flow.up?.icmpTypeCode ?? 0;
  return [
    {
      ...record(up, { ...counters(flow.up), icmpTypeCode }),
      reverse: { ...counters(flow.down), icmpTypeCode },
    },
  ];
}

export function expectedSoftflowdRecords(conversations: readonly ConversationFlows[], bidirectional: boolean): ExpectedRecord[] {
  return conversations.flatMap((c) => meterFlows(c).flatMap((f) => flowRecords(f, bidirectional)));
}

/**
 * A capture time (µs since the epoch) as softflowd reports it with `-A format`, back in µs since the
 * epoch: truncated to s or ms; micro and nano go through NTP after softflowd adds 1 µs; sysUpTime is
 * whole ms since the boot time (the first packet of the capture, with `-a`) added to
 * systemInitTimeMilliseconds (the boot time truncated to ms).
 */
export function softflowdTimeUs(us: number, format: SoftflowdTimeFormat, bootUs: number): number {
  switch (format) {
    case 'sec':
      return Math.floor(us / 1e6) * 1e6;
    case 'milli':
      return Math.floor(us / 1e3) * 1e3;
    case 'micro':
    case 'nano':
      return us + 1;
    case 'sysUpTime':
      return (Math.floor(bootUs / 1e3) + Math.floor((us - bootUs) / 1e3)) * 1e3;
  }
}
