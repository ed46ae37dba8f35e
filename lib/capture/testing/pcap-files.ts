// Test support: builds pcap and pcapng files around UDP payloads, so that tests need no capture
// tools. Production code never imports this file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseIpv4Into, parseIpv6Into } from '../../ipfix/text.js';
import { FileReader } from '../file-reader.js';
import { LINKTYPE } from '../packet.js';
import { type Frame, readPcap } from '../pcap.js';

export interface Datagram {
  readonly src: string;
  readonly srcPort: number;
  readonly dst: string;
  readonly dstPort: number;
  readonly payload: Uint8Array;
}

function ip(text: string): Buffer {
  const b = Buffer.alloc(text.includes(':') ? 16 : 4);
  if (!(b.length === 16 ? parseIpv6Into(text, b, 0) : parseIpv4Into(text, b, 0))) throw new Error(`bad address ${text}`);
  return b;
}

function udp(d: Datagram): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt16BE(d.srcPort, 0);
  h.writeUInt16BE(d.dstPort, 2);
  h.writeUInt16BE(8 + d.payload.length, 4);
  return Buffer.concat([h, d.payload]);
}

/** An IPv4 or IPv6 packet carrying the datagram as UDP. */
export function ipPacket(d: Datagram): Buffer {
  const u = udp(d);
  if (d.src.includes(':')) {
    const h = Buffer.alloc(40);
    h[0] = 0x60;
    h.writeUInt16BE(u.length, 4);
    h[6] = 17;
    h[7] = 64;
    ip(d.src).copy(h, 8);
    ip(d.dst).copy(h, 24);
    return Buffer.concat([h, u]);
  }
  const h = Buffer.alloc(20);
  h[0] = 0x45;
  h.writeUInt16BE(20 + u.length, 2);
  h[8] = 64;
  h[9] = 17;
  ip(d.src).copy(h, 12);
  ip(d.dst).copy(h, 16);
  return Buffer.concat([h, u]);
}

export function ethernetFrame(d: Datagram, vlan?: number): Buffer {
  const type = Buffer.from(d.src.includes(':') ? [0x86, 0xdd] : [0x08, 0x00]);
  const tag = vlan === undefined ? Buffer.alloc(0) : Buffer.from([0x81, 0x00, (vlan >> 8) & 0x0f, vlan & 0xff]);
  return Buffer.concat([Buffer.from('00112233445566778899aabb', 'hex'), tag, type, ipPacket(d)]);
}

export function sllFrame(d: Datagram): Buffer {
  const h = Buffer.alloc(16);
  h.writeUInt16BE(0, 0); // sent to us
  h.writeUInt16BE(1, 2); // ARPHRD_ETHER
  h.writeUInt16BE(6, 4);
  h.writeUInt16BE(d.src.includes(':') ? 0x86dd : 0x0800, 14);
  return Buffer.concat([h, ipPacket(d)]);
}

export function sll2Frame(d: Datagram): Buffer {
  const h = Buffer.alloc(20);
  h.writeUInt16BE(d.src.includes(':') ? 0x86dd : 0x0800, 0);
  h.writeUInt16BE(1, 8);
  h[11] = 6;
  return Buffer.concat([h, ipPacket(d)]);
}

export interface PcapPacket {
  /** Capture time in microseconds since the Unix epoch. */
  readonly timeUs: number;
  readonly frame: Uint8Array;
}

/**
 * A classic libpcap file (little-endian, microsecond timestamps):
 *   global header (24 bytes): magic a1b2c3d4, version 2.4, thiszone 0, sigfigs 0, snaplen, linktype
 *   record header (16 bytes): ts_sec, ts_usec, incl_len, orig_len, then incl_len bytes of frame
 */
export function writePcap(packets: readonly PcapPacket[], linkType: number = LINKTYPE.ETHERNET): Buffer {
  const out = Buffer.alloc(packets.reduce((n, p) => n + 16 + p.frame.length, 24));
  out.writeUInt32LE(0xa1b2c3d4, 0);
  out.writeUInt16LE(2, 4);
  out.writeUInt16LE(4, 6);
  out.writeUInt32LE(262_144, 16);
  out.writeUInt32LE(linkType, 20);
  let at = 24;
  for (const { timeUs, frame } of packets) {
    if (!Number.isSafeInteger(timeUs) || timeUs < 0) throw new RangeError(`pcap: bad packet time ${timeUs} µs`);
    out.writeUInt32LE(Math.floor(timeUs / 1e6), at);
    out.writeUInt32LE(timeUs % 1e6, at + 4);
    out.writeUInt32LE(frame.length, at + 8);
    out.writeUInt32LE(frame.length, at + 12);
    out.set(frame, at + 16);
    at += 16 + frame.length;
  }
  return out;
}

/** A pcap file of frames one second apart. */
export function pcapFile(linkType: number, frames: readonly Buffer[], startSeconds = 1_700_000_000): Buffer {
  return writePcap(frames.map((frame, i) => ({ timeUs: (startSeconds + i) * 1e6, frame })), linkType);
}

/** The frames of an in-memory pcap file, read back by the production reader. */
export function readPcapBuffer(file: Uint8Array): Frame[] {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-pcap-'));
  const path = join(dir, 'capture.pcap');
  writeFileSync(path, file);
  const reader = new FileReader(path);
  try {
    return [...readPcap(reader)].map((f) => ({ ...f, data: Buffer.from(f.data) }));
  } finally {
    reader.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function block(type: number, body: Buffer): Buffer {
  const padded = Buffer.concat([body, Buffer.alloc((4 - (body.length % 4)) % 4)]);
  const h = Buffer.alloc(8);
  h.writeUInt32LE(type, 0);
  h.writeUInt32LE(padded.length + 12, 4);
  const t = Buffer.alloc(4);
  t.writeUInt32LE(padded.length + 12, 0);
  return Buffer.concat([h, padded, t]);
}

/** A little-endian pcapng file with one interface and enhanced packet blocks (µs timestamps). */
export function pcapngFile(linkType: number, frames: readonly Buffer[], startSeconds = 1_700_000_000): Buffer {
  const shb = Buffer.alloc(16);
  shb.writeUInt32LE(0x1a2b3c4d, 0);
  shb.writeUInt16LE(1, 4);
  shb.writeBigInt64LE(-1n, 8);
  const idb = Buffer.alloc(8);
  idb.writeUInt16LE(linkType, 0);
  idb.writeUInt32LE(65535, 4);
  const epbs = frames.map((f, i) => {
    const h = Buffer.alloc(20);
    const ts = BigInt(startSeconds + i) * 1_000_000n;
    h.writeUInt32LE(Number(ts >> 32n), 4);
    h.writeUInt32LE(Number(ts & 0xffffffffn), 8);
    h.writeUInt32LE(f.length, 12);
    h.writeUInt32LE(f.length, 16);
    return block(6, Buffer.concat([h, f]));
  });
  return Buffer.concat([block(0x0a0d0d0a, shb), block(1, idb), ...epbs]);
}

export { LINKTYPE };
