// Packet captures: classic pcap (https://www.tcpdump.org/manpages/pcap-savefile.5.html) and pcapng
// (draft-ietf-opsawg-pcapng). Both yield frames with their link type and timestamp; packet.ts takes
// the frames apart.
//
// pcap:   global header (24): magic a1b2c3d4 (µs) or a1b23c4d (ns), either byte order | version (2+2) |
//         thiszone (4) | sigfigs (4) | snaplen (4) | link type (4)
//         record header (16): ts seconds (4) | ts µs/ns (4) | captured length (4) | original length (4)
// pcapng: blocks of  type (4) | total length (4) | body | total length (4), 32-bit aligned;
//         SHB 0x0a0d0d0a (byte-order magic 1a2b3c4d), IDB 1 (link type, if_tsresol option),
//         EPB 6 (interface, timestamp, captured length), SPB 3, obsolete packet block 2.
import { CAPTURE_ERR, CaptureError } from './errors.js';
import type { FileReader } from './file-reader.js';

export interface Frame {
  readonly linkType: number;
  /** Milliseconds since the Unix epoch. */
  readonly timestampMs: number;
  readonly data: Uint8Array;
  /** File offset of the record or block that holds the frame. */
  readonly offset: number;
}

export type CaptureKind = 'pcap' | 'pcapng' | 'ipfix';

export function detectKind(head: Uint8Array): CaptureKind | undefined {
  if (head.length < 4) return undefined;
  const be = ((head[0] as number) << 24 | (head[1] as number) << 16 | (head[2] as number) << 8 | (head[3] as number)) >>> 0;
  if (be === 0x0a0d0d0a) return 'pcapng';
  if (be === 0xa1b2c3d4 || be === 0xd4c3b2a1 || be === 0xa1b23c4d || be === 0x4d3cb2a1) return 'pcap';
  if (head[0] === 0 && head[1] === 10) return 'ipfix';
  return undefined;
}

/** Largest record or block accepted; larger lengths mean a corrupt file, not a big packet. */
const MAX_UNIT = 1 << 20;

function truncated(what: string, offset: number): CaptureError {
  return new CaptureError(CAPTURE_ERR.TRUNCATED, `${what} at byte ${offset} is cut off by the end of the file`, { offset });
}

export function* readPcap(r: FileReader): Generator<Frame> {
  const head = r.read(24);
  if (head.length < 24) throw truncated('pcap global header', 0);
  const magic = head.readUInt32LE(0);
  const little = magic === 0xa1b2c3d4 || magic === 0xa1b23c4d;
  const nano = magic === 0xa1b23c4d || magic === 0x4d3cb2a1;
  const u32 = (b: Buffer, p: number) => (little ? b.readUInt32LE(p) : b.readUInt32BE(p));
  const linkType = u32(head, 20) & 0xffff;
  for (;;) {
    const offset = r.offset;
    const rec = r.read(16);
    if (rec.length === 0) return;
    if (rec.length < 16) throw truncated('pcap record header', offset);
    const sec = u32(rec, 0);
    const frac = u32(rec, 4);
    const caplen = u32(rec, 8);
    if (caplen > MAX_UNIT) throw new CaptureError(CAPTURE_ERR.MALFORMED, `pcap record at byte ${offset} claims ${caplen} captured bytes`, { offset });
    const data = r.read(caplen);
    if (data.length < caplen) throw truncated('pcap record', offset);
    yield { linkType, timestampMs: sec * 1000 + (nano ? frac / 1e6 : frac / 1e3), data, offset };
  }
}

interface PcapngInterface {
  linkType: number;
  /** Timestamp units per second. */
  unitsPerSecond: number;
}

export function* readPcapng(r: FileReader): Generator<Frame> {
  let little = true;
  let interfaces: PcapngInterface[] = [];
  for (;;) {
    const offset = r.offset;
    const head = r.peek(12);
    if (head.length === 0) return;
    if (head.length < 12) throw truncated('pcapng block header', offset);
    const rawType = head.readUInt32LE(0);
    if (rawType === 0x0a0d0d0a) {
      const bom = head.readUInt32LE(8);
      if (bom === 0x1a2b3c4d) little = true;
      else if (bom === 0x4d3c2b1a) little = false;
      else throw new CaptureError(CAPTURE_ERR.MALFORMED, `pcapng section header at byte ${offset} has no valid byte-order magic`, { offset });
      interfaces = [];
    }
    const u32 = (b: Buffer, p: number) => (little ? b.readUInt32LE(p) : b.readUInt32BE(p));
    const u16 = (b: Buffer, p: number) => (little ? b.readUInt16LE(p) : b.readUInt16BE(p));
    const type = u32(head, 0);
    const total = u32(head, 4);
    if (total < 12 || total % 4 !== 0 || total > MAX_UNIT) {
      throw new CaptureError(CAPTURE_ERR.MALFORMED, `pcapng block at byte ${offset} has length ${total}`, { offset });
    }
    const block = r.read(total);
    if (block.length < total) throw truncated('pcapng block', offset);
    const body = block.subarray(8, total - 4);
    if (type === 1 && body.length >= 8) {
      interfaces.push({ linkType: u16(body, 0), unitsPerSecond: tsResolution(body.subarray(8), u16) });
    } else if ((type === 6 || type === 2) && body.length >= 20) {
      const iface = type === 6 ? u32(body, 0) : u16(body, 0);
      const info = interfaces[iface];
      if (info === undefined) continue;
      const ts = u32(body, 4) * 4294967296 + u32(body, 8);
      const caplen = Math.min(u32(body, 12), body.length - 20);
      yield { linkType: info.linkType, timestampMs: (ts / info.unitsPerSecond) * 1000, data: body.subarray(20, 20 + caplen), offset };
    } else if (type === 3 && body.length >= 4) {
      const info = interfaces[0];
      if (info === undefined) continue;
      yield { linkType: info.linkType, timestampMs: 0, data: body.subarray(4, 4 + Math.min(u32(body, 0), body.length - 4)), offset };
    }
  }
}

/** The if_tsresol option (code 9) of an interface description block; default microseconds. */
function tsResolution(options: Buffer, u16: (b: Buffer, p: number) => number): number {
  for (let p = 0; p + 4 <= options.length; ) {
    const code = u16(options, p);
    const len = u16(options, p + 2);
    if (code === 0) break;
    if (code === 9 && len >= 1 && p + 4 < options.length) {
      const v = options[p + 4] as number;
      return v & 0x80 ? 2 ** (v & 0x7f) : 10 ** (v & 0x7f);
    }
    p += 4 + Math.ceil(len / 4) * 4;
  }
  return 1e6;
}
