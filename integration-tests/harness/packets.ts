// Builds Ethernet frames carrying IPv4 or IPv6 with TCP, UDP or ICMP (ICMPv6 over IPv6), checksums
// included, so that softflowd and tshark see ordinary, valid traffic.
//
//   Ethernet II: dst MAC(6) src MAC(6) ethertype(2)            0x0800 IPv4, 0x86dd IPv6
//   IPv4 (RFC 791): ver/ihl tos totlen id flags/frag ttl proto csum src(4) dst(4)
//   IPv6 (RFC 8200): ver/tc/flow(4) payload len(2) next header hop limit src(16) dst(16)
//   TCP (RFC 9293): sport dport seq ack off/flags window csum urg      UDP (RFC 768): sport dport len csum
//   ICMP (RFC 792) / ICMPv6 (RFC 4443): type code csum rest-of-header(4)
import { isIPv4, isIPv6 } from 'node:net';

export const IPPROTO_ICMP = 1;
export const IPPROTO_TCP = 6;
export const IPPROTO_UDP = 17;
export const IPPROTO_ICMPV6 = 58;

export const TCP_FIN = 0x01;
export const TCP_SYN = 0x02;
export const TCP_RST = 0x04;
export const TCP_PSH = 0x08;
export const TCP_ACK = 0x10;

export type Transport =
  | {
      readonly kind: 'tcp';
      readonly srcPort: number;
      readonly dstPort: number;
      readonly flags: number;
      readonly seq: number;
      /** Ignored unless ACK is set. */
      readonly ack: number;
    }
  | { readonly kind: 'udp'; readonly srcPort: number; readonly dstPort: number }
  | { readonly kind: 'icmp'; readonly type: number; readonly code: number };

export interface IpPacket {
  /** IPv4 or IPv6 address text; both ends must be of one family. */
  readonly src: string;
  readonly dst: string;
  readonly transport: Transport;
  /** The payload, or its length to fill with a deterministic pattern. */
  readonly payload: Uint8Array | number;
  readonly ttl?: number;
  readonly tos?: number;
}

// Ethernet II header: locally administered MACs 02:00:00:00:00:02 <- 02:00:00:00:00:01, then the ethertype.
const ETH_IPV4 = Buffer.from('020000000002020000000001' + '0800', 'hex');
const ETH_IPV6 = Buffer.from('020000000002020000000001' + '86dd', 'hex');

// Traffic reuses a few addresses many times, and parsing them dominated building a frame. The bytes
// returned are shared: callers copy them, never modify them.
const parsed = new Map<string, Uint8Array>();

export function addressBytes(text: string): Uint8Array {
  let bytes = parsed.get(text);
  if (bytes === undefined) {
    bytes = parseAddress(text);
    parsed.set(text, bytes);
  }
  return bytes;
}

function parseAddress(text: string): Uint8Array {
  if (isIPv4(text)) return Uint8Array.from(text.split('.').map(Number));
  if (!isIPv6(text) || text.includes('.')) throw new RangeError(`not an IP address the harness can encode: ${text}`);
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const words = (s: string | undefined) => (s ? s.split(':').map((w) => parseInt(w, 16)) : []);
  const left = words(head);
  const right = words(tail);
  const all = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  const out = new Uint8Array(16);
  all.forEach((w, i) => {
    out[2 * i] = w >> 8;
    out[2 * i + 1] = w & 0xff;
  });
  return out;
}

/** The Internet checksum (RFC 1071) over the concatenated parts. */
export function internetChecksum(...parts: Uint8Array[]): number {
  let sum = 0;
  let odd = -1; // a byte left over from the previous part, waiting for its low half
  for (const part of parts) {
    let i = 0;
    if (odd >= 0 && part.length > 0) {
      sum += (odd << 8) | (part[0] as number);
      odd = -1;
      i = 1;
    }
    for (; i + 1 < part.length; i += 2) sum += ((part[i] as number) << 8) | (part[i + 1] as number);
    if (i < part.length) odd = part[i] as number;
    if (sum > 0x7fff_ffff) sum = (sum & 0xffff) + (sum >>> 16);
  }
  if (odd >= 0) sum += odd << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

function transportHeader(t: Transport, family: 4 | 6): { proto: number; header: Buffer; checksumAt: number } {
  switch (t.kind) {
    case 'tcp': {
      const h = Buffer.alloc(20);
      h.writeUInt16BE(t.srcPort, 0);
      h.writeUInt16BE(t.dstPort, 2);
      h.writeUInt32BE(t.seq >>> 0, 4);
      h.writeUInt32BE(t.flags & TCP_ACK ? t.ack >>> 0 : 0, 8);
      h[12] = 5 << 4;
      h[13] = t.flags;
      h.writeUInt16BE(65_535, 14);
      return { proto: IPPROTO_TCP, header: h, checksumAt: 16 };
    }
    case 'udp': {
      const h = Buffer.alloc(8);
      h.writeUInt16BE(t.srcPort, 0);
      h.writeUInt16BE(t.dstPort, 2);
      return { proto: IPPROTO_UDP, header: h, checksumAt: 6 };
    }
    case 'icmp': {
      const h = Buffer.alloc(8);
      h[0] = t.type;
      h[1] = t.code;
      return { proto: family === 4 ? IPPROTO_ICMP : IPPROTO_ICMPV6, header: h, checksumAt: 2 };
    }
  }
}

const PATTERN = Uint8Array.from({ length: 65_536 }, (_, i) => i & 0xff);

function patternBytes(length: number): Uint8Array {
  if (length > PATTERN.length) throw new RangeError(`payload of ${length} bytes does not fit an IP packet`);
  return PATTERN.subarray(0, length);
}

/** An Ethernet II frame holding the packet. */
export function ethernetFrame(p: IpPacket): Buffer {
  const src = addressBytes(p.src);
  const dst = addressBytes(p.dst);
  if (src.length !== dst.length) throw new RangeError(`mixed address families: ${p.src} -> ${p.dst}`);
  const family = src.length === 4 ? 4 : 6;
  const { proto, header, checksumAt } = transportHeader(p.transport, family);
  const payload = typeof p.payload === 'number' ? patternBytes(p.payload) : p.payload;
  const l4Length = header.length + payload.length;
  if (p.transport.kind === 'udp') header.writeUInt16BE(l4Length, 4);

  const pseudo = Buffer.alloc(family === 4 ? 12 : 40);
  pseudo.set(src, 0);
  pseudo.set(dst, src.length);
  if (family === 4) {
    pseudo[9] = proto;
    pseudo.writeUInt16BE(l4Length, 10);
  } else {
    pseudo.writeUInt32BE(l4Length, 32);
    pseudo[39] = proto;
  }
  // ICMPv4 has no pseudo-header; every other transport here has one.
  const covered = proto === IPPROTO_ICMP ? [header, payload] : [pseudo, header, payload];
  header.writeUInt16BE(internetChecksum(...covered), checksumAt);

  const ip = family === 4 ? ipv4Header(p, proto, src, dst, l4Length) : ipv6Header(p, proto, src, dst, l4Length);
  return Buffer.concat([family === 4 ? ETH_IPV4 : ETH_IPV6, ip, header, payload]);
}

function ipv4Header(p: IpPacket, proto: number, src: Uint8Array, dst: Uint8Array, l4Length: number): Buffer {
  const h = Buffer.alloc(20);
  h[0] = 0x45;
  h[1] = p.tos ?? 0;
  h.writeUInt16BE(20 + l4Length, 2);
  h.writeUInt16BE(0x4000, 6); // don't fragment
  h[8] = p.ttl ?? 64;
  h[9] = proto;
  h.set(src, 12);
  h.set(dst, 16);
  h.writeUInt16BE(internetChecksum(h), 10);
  return h;
}

function ipv6Header(p: IpPacket, proto: number, src: Uint8Array, dst: Uint8Array, l4Length: number): Buffer {
  const h = Buffer.alloc(40);
  h.writeUInt32BE(((6 << 28) | ((p.tos ?? 0) << 20)) >>> 0, 0);
  h.writeUInt16BE(l4Length, 4);
  h[6] = proto;
  h[7] = p.ttl ?? 64;
  h.set(src, 8);
  h.set(dst, 24);
  return h;
}

/** Bytes of the IP packet (header included) inside a frame built by ethernetFrame: what flow meters count. */
export function ipLength(frame: Uint8Array): number {
  return frame.length - 14;
}
