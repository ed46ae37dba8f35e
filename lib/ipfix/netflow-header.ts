// NetFlow packet headers. Version 9 (RFC 3954 §5.1), 20 bytes:
//
//   0                   1                   2                   3
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |       Version Number (9)      |            Count              |
//  |                           sysUpTime (ms)                      |
//  |                           UNIX Secs                           |
//  |                       Sequence Number (packets)               |
//  |                        Source ID                              |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Version 5 (Cisco's fixed format), 24 bytes: version (5), count (1..30 records), sysUpTime, unix_secs,
// unix_nsecs, flow_sequence (flows sent before this packet), engine_type, engine_id (1 byte each) and
// sampling_interval (2 bits of mode, 14 bits of interval).
//
// Neither has a length field: a packet is one UDP datagram. The header's two clocks give the exporter's
// boot time, to which flow times (ms of sysUpTime) are relative: unix time less sysUpTime. v9's unix time
// is whole seconds, so its boot time, like nfdump's, may be up to a second early.
import { IPFIX_ERR, IpfixError } from './errors.js';
import { u16, u32 } from './message-header.js';
import type { MessageHeader } from './types.js';

export const NETFLOW_V9_VERSION = 9;
export const NETFLOW_V5_VERSION = 5;
export const NETFLOW_V9_HEADER_LENGTH = 20;
export const NETFLOW_V5_HEADER_LENGTH = 24;

export interface NetflowHeader extends MessageHeader {
  /** ms since the exporter booted, when it sent the packet. */
  readonly sysUpTime: number;
  /** Records in the packet (v9: template, options and data records together), as the header says. */
  readonly count: number;
  /** The exporter's boot time, ms since the Unix epoch. */
  readonly systemInitTime: number;
  /** v5: 1 in this many packets was sampled (0 when the header does not say); v9 says it in options records. */
  readonly samplingInterval: number;
}

function tooShort(b: Uint8Array, version: number, length: number): IpfixError {
  return new IpfixError(IPFIX_ERR.NETFLOW_TRUNCATED_HEADER, `packet of ${b.length} bytes is shorter than the ${length}-byte NetFlow v${version} header`, { offset: 0 });
}

/** The header of the NetFlow v9 packet `b` (whose version field the caller has read). */
export function readNetflowV9Header(b: Uint8Array): NetflowHeader {
  if (b.length < NETFLOW_V9_HEADER_LENGTH) throw tooShort(b, 9, NETFLOW_V9_HEADER_LENGTH);
  const sysUpTime = u32(b, 4);
  const exportTime = u32(b, 8);
  return {
    version: NETFLOW_V9_VERSION, length: b.length, count: u16(b, 2), sysUpTime, exportTime, sequenceNumber: u32(b, 12), observationDomainId: u32(b, 16),
    systemInitTime: exportTime * 1000 - sysUpTime, samplingInterval: 0,
  };
}

/** The header of the NetFlow v5 packet `b`. Its observation domain is engine_type × 256 + engine_id, as nfdump's. */
export function readNetflowV5Header(b: Uint8Array): NetflowHeader {
  if (b.length < NETFLOW_V5_HEADER_LENGTH) throw tooShort(b, 5, NETFLOW_V5_HEADER_LENGTH);
  const sysUpTime = u32(b, 4);
  const exportTime = u32(b, 8);
  const nanos = u32(b, 12);
  return {
    version: NETFLOW_V5_VERSION, length: b.length, count: u16(b, 2), sysUpTime, exportTime, sequenceNumber: u32(b, 16),
    observationDomainId: ((b[20] as number) << 8) | (b[21] as number),
    systemInitTime: exportTime * 1000 + Math.floor(nanos / 1e6) - sysUpTime,
    samplingInterval: u16(b, 22) & 0x3fff,
  };
}
