// The IPFIX messages in a file, whatever its kind (detected by its magic number): an RFC 5655 IPFIX
// file (messages back to back) or a pcap/pcapng capture of UDP datagrams carrying IPFIX.
// In an IPFIX file the only way to the next message is the current one's length field, so a garbage
// length ends the file with an error; in a capture each packet stands alone.
import { CAPTURE_ERR, CaptureError } from './errors.js';
import { FileReader } from './file-reader.js';
import { udpOf } from './packet.js';
import { type CaptureKind, detectKind, readPcap, readPcapng } from './pcap.js';

export type CapturedMessage =
  | {
      readonly kind: 'message';
      /** "address:port" of the UDP sender (captures), undefined for IPFIX files. */
      readonly exporter: string | undefined;
      /** File offset of the message (IPFIX file) or of its packet record (capture). */
      readonly offset: number;
      /** Capture timestamp in ms (captures) or undefined. */
      readonly timestampMs: number | undefined;
      /** Valid until the next message is read. */
      readonly bytes: Uint8Array;
    }
  | { readonly kind: 'skipped'; readonly offset: number; readonly reason: string };

export function* capturedMessages(path: string): Generator<CapturedMessage, CaptureKind> {
  const r = new FileReader(path);
  try {
    const kind = detectKind(r.peek(4));
    if (kind === undefined) {
      throw new CaptureError(CAPTURE_ERR.UNKNOWN_FORMAT, `${path} is neither an IPFIX file (RFC 5655) nor a pcap or pcapng capture`, { offset: 0 });
    }
    if (kind === 'ipfix') {
      yield* ipfixFileMessages(r);
    } else {
      for (const frame of kind === 'pcap' ? readPcap(r) : readPcapng(r)) {
        const p = udpOf(frame.linkType, frame.data);
        if (p.kind === 'skipped') {
          yield { kind: 'skipped', offset: frame.offset, reason: p.reason };
          continue;
        }
        const d = p.datagram;
        const exporter = d.sourceAddress.includes(':') ? `[${d.sourceAddress}]:${d.sourcePort}` : `${d.sourceAddress}:${d.sourcePort}`;
        yield { kind: 'message', exporter, offset: frame.offset, timestampMs: frame.timestampMs, bytes: d.payload };
      }
    }
    return kind;
  } finally {
    r.close();
  }
}

function* ipfixFileMessages(r: FileReader): Generator<CapturedMessage> {
  for (;;) {
    const offset = r.offset;
    const head = r.peek(4);
    if (head.length === 0) return;
    const version = head.length >= 2 ? head.readUInt16BE(0) : -1;
    const length = head.length >= 4 ? head.readUInt16BE(2) : -1;
    if (version !== 10 || length < 16) {
      throw new CaptureError(
        CAPTURE_ERR.MALFORMED,
        `no IPFIX message header at byte ${offset} (version ${version}, length ${length}); the next message cannot be found, decoding stops`,
        { offset },
      );
    }
    const bytes = r.read(length);
    if (bytes.length < length) throw new CaptureError(CAPTURE_ERR.TRUNCATED, `IPFIX message at byte ${offset} announces ${length} bytes but the file ends after ${bytes.length}`, { offset });
    yield { kind: 'message', exporter: undefined, offset, timestampMs: undefined, bytes };
  }
}
