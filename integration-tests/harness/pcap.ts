// The classic libpcap file format (microsecond timestamps, little-endian), written and read back by the
// harness so that tests can hand generated traffic to softflowd and exported datagrams to tshark.
//
//   global header (24 bytes): magic a1b2c3d4, version 2.4, thiszone 0, sigfigs 0, snaplen, linktype
//   record header (16 bytes): ts_sec, ts_usec, incl_len, orig_len, then incl_len bytes of frame

export const LINKTYPE_ETHERNET = 1;

const MAGIC_MICROS = 0xa1b2c3d4;
const GLOBAL_HEADER = 24;
const RECORD_HEADER = 16;
const SNAPLEN = 262_144;

export interface PcapPacket {
  /** Capture time in microseconds since the Unix epoch. */
  readonly timeUs: number;
  readonly frame: Uint8Array;
}

export interface PcapFile {
  readonly linkType: number;
  readonly packets: PcapPacket[];
}

export function writePcap(packets: readonly PcapPacket[], linkType = LINKTYPE_ETHERNET): Buffer {
  const size = packets.reduce((n, p) => n + RECORD_HEADER + p.frame.length, GLOBAL_HEADER);
  const out = Buffer.alloc(size);
  out.writeUInt32LE(MAGIC_MICROS, 0);
  out.writeUInt16LE(2, 4);
  out.writeUInt16LE(4, 6);
  out.writeUInt32LE(SNAPLEN, 16);
  out.writeUInt32LE(linkType, 20);
  let at = GLOBAL_HEADER;
  for (const { timeUs, frame } of packets) {
    if (!Number.isSafeInteger(timeUs) || timeUs < 0) throw new RangeError(`pcap: bad packet time ${timeUs} µs`);
    out.writeUInt32LE(Math.floor(timeUs / 1e6), at);
    out.writeUInt32LE(timeUs % 1e6, at + 4);
    out.writeUInt32LE(frame.length, at + 8);
    out.writeUInt32LE(frame.length, at + 12);
    out.set(frame, at + RECORD_HEADER);
    at += RECORD_HEADER + frame.length;
  }
  return out;
}

/** Reads what writePcap writes (little-endian, microsecond magic); anything else is rejected. */
export function readPcap(buf: Uint8Array): PcapFile {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < GLOBAL_HEADER || b.readUInt32LE(0) !== MAGIC_MICROS) {
    throw new RangeError('pcap: not a little-endian microsecond pcap file');
  }
  const linkType = b.readUInt32LE(20);
  const packets: PcapPacket[] = [];
  let at = GLOBAL_HEADER;
  while (at < b.length) {
    if (at + RECORD_HEADER > b.length) throw new RangeError(`pcap: truncated record header at offset ${at}`);
    const inclLen = b.readUInt32LE(at + 8);
    const end = at + RECORD_HEADER + inclLen;
    if (end > b.length) throw new RangeError(`pcap: record at offset ${at} overruns the file`);
    packets.push({ timeUs: b.readUInt32LE(at) * 1e6 + b.readUInt32LE(at + 4), frame: b.subarray(at + RECORD_HEADER, end) });
    at = end;
  }
  return { linkType, packets };
}
