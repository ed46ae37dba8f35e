// From a captured frame to the UDP datagram it carries, with the sender's address and port:
// link layer (Ethernet with 802.1Q/802.1ad tags, Linux cooked SLL and SLL2, raw IP, BSD loopback),
// then IPv4 (options skipped) or IPv6 (extension headers skipped), then UDP. Fragments are not
// reassembled: a fragmented datagram is reported as such and skipped.
//
// Ethernet: dst (6) | src (6) | [0x8100/0x88a8 | TCI (2)]* | EtherType (2) | payload
// SLL (113): packet type (2) | ARPHRD (2) | addr len (2) | addr (8) | protocol (2) | payload
// SLL2 (276): protocol (2) | reserved (2) | ifindex (4) | ARPHRD (2) | type (1) | addr len (1) | addr (8) | payload
// IPv4: ver/IHL | ... | protocol @9 | src @12 | dst @16;  IPv6: next header @6 | src @8 | dst @24, 40 bytes
// UDP: src port | dst port | length | checksum, 8 bytes
import { formatIpv4, formatIpv6 } from '../ipfix/text.js';

export const LINKTYPE = { NULL: 0, ETHERNET: 1, RAW: 101, LINUX_SLL: 113, LINUX_SLL2: 276, IPV4: 228, IPV6: 229 } as const;

export interface UdpDatagram {
  readonly sourceAddress: string;
  readonly sourcePort: number;
  readonly destinationAddress: string;
  readonly destinationPort: number;
  readonly payload: Uint8Array;
}

export type PacketResult =
  | { readonly kind: 'udp'; readonly datagram: UdpDatagram }
  | { readonly kind: 'skipped'; readonly reason: string };

const skipped = (reason: string): PacketResult => ({ kind: 'skipped', reason });

function u16(b: Uint8Array, p: number): number {
  return ((b[p] as number) << 8) | (b[p + 1] as number);
}

/** The network-layer protocol (an EtherType) and where its header starts, per link type. */
function linkPayload(linkType: number, f: Uint8Array): { etherType: number; start: number } | string {
  switch (linkType) {
    case LINKTYPE.ETHERNET: {
      let p = 12;
      let type = f.length >= 14 ? u16(f, 12) : -1;
      while ((type === 0x8100 || type === 0x88a8 || type === 0x9100) && f.length >= p + 8) {
        p += 4;
        type = u16(f, p);
      }
      return type < 0 ? 'frame shorter than an Ethernet header' : { etherType: type, start: p + 2 };
    }
    case LINKTYPE.LINUX_SLL:
      return f.length < 16 ? 'frame shorter than a Linux cooked header' : { etherType: u16(f, 14), start: 16 };
    case LINKTYPE.LINUX_SLL2:
      return f.length < 20 ? 'frame shorter than a Linux cooked v2 header' : { etherType: u16(f, 0), start: 20 };
    case LINKTYPE.RAW: case 12: case 14: case LINKTYPE.IPV4: case LINKTYPE.IPV6: {
      const version = f.length > 0 ? (f[0] as number) >> 4 : 0;
      return version === 4 ? { etherType: 0x0800, start: 0 } : version === 6 ? { etherType: 0x86dd, start: 0 } : 'raw frame is neither IPv4 nor IPv6';
    }
    case LINKTYPE.NULL: {
      if (f.length < 4) return 'frame shorter than a loopback header';
      const fam = f[0] !== 0 ? f[0] : f[3]; // the family is in the writer's byte order: one end holds it
      return fam === 2 ? { etherType: 0x0800, start: 4 } : fam === 24 || fam === 28 || fam === 30 ? { etherType: 0x86dd, start: 4 } : 'loopback frame is neither IPv4 nor IPv6';
    }
    default:
      return `link type ${linkType} is not supported (Ethernet, Linux cooked, raw IP are)`;
  }
}

const IPV6_EXTENSIONS = new Set([0, 43, 60, 135, 139, 140]);

export function udpOf(linkType: number, frame: Uint8Array): PacketResult {
  const link = linkPayload(linkType, frame);
  if (typeof link === 'string') return skipped(link);
  const ip = frame.subarray(link.start);
  let src: string;
  let dst: string;
  let udp: Uint8Array;
  if (link.etherType === 0x0800) {
    if (ip.length < 20 || (ip[0] as number) >> 4 !== 4) return skipped('truncated or invalid IPv4 header');
    const ihl = ((ip[0] as number) & 0x0f) * 4;
    if (ihl < 20 || ip.length < ihl) return skipped('invalid IPv4 header length');
    if (ip[9] !== 17) return skipped(`IP protocol ${ip[9]} is not UDP`);
    if ((u16(ip, 6) & 0x3fff) !== 0) return skipped('fragmented IPv4 datagram (not reassembled)');
    const total = Math.min(u16(ip, 2), ip.length);
    src = formatIpv4(ip, 12);
    dst = formatIpv4(ip, 16);
    udp = ip.subarray(ihl, Math.max(ihl, total));
  } else if (link.etherType === 0x86dd) {
    if (ip.length < 40) return skipped('truncated IPv6 header');
    let next = ip[6] as number;
    let p = 40;
    while (IPV6_EXTENSIONS.has(next) && ip.length >= p + 8) {
      next = ip[p] as number;
      p += ((ip[p + 1] as number) + 1) * 8;
    }
    if (next === 44) return skipped('fragmented IPv6 datagram (not reassembled)');
    if (next !== 17) return skipped(`IPv6 next header ${next} is not UDP`);
    src = formatIpv6(ip, 8);
    dst = formatIpv6(ip, 24);
    udp = ip.subarray(p, Math.min(ip.length, 40 + u16(ip, 4)));
  } else {
    return skipped(`EtherType 0x${link.etherType.toString(16).padStart(4, '0')} is not IP`);
  }
  if (udp.length < 8) return skipped('truncated UDP header');
  const len = Math.min(Math.max(u16(udp, 4), 8), udp.length);
  return {
    kind: 'udp',
    datagram: { sourceAddress: src, sourcePort: u16(udp, 0), destinationAddress: dst, destinationPort: u16(udp, 2), payload: udp.subarray(8, len) },
  };
}
