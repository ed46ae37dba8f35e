// Variable-Length Information Element (RFC 7011 §7): a length prefix before the content, either
//
//    0                   1                   2                   3
//    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   | Length (< 255)|          Information Element                  |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// or, for 255 bytes and more, 255 followed by a 2-byte length:
//
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |      255      |      Length (0 to 65535)      |       IE      |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// The compiled decoders inline the read; these helpers serve lists, the encoder and tests.
export const VARLEN_LONG = 255;

/** Packs the result of readVarlenHeader: content start and content length, or -1 when cut off. */
export interface VarlenSpan {
  start: number;
  length: number;
}

/** Reads the length prefix at b[p]; returns false when the prefix or content passes `end`. */
export function readVarlenHeader(b: Uint8Array, p: number, end: number, out: VarlenSpan): boolean {
  if (p >= end) return false;
  let len = b[p] as number;
  let start = p + 1;
  if (len === VARLEN_LONG) {
    if (start + 2 > end) return false;
    len = ((b[start] as number) << 8) | (b[start + 1] as number);
    start += 2;
  }
  if (start + len > end) return false;
  out.start = start;
  out.length = len;
  return true;
}

export function varlenPrefixSize(length: number): number {
  return length < VARLEN_LONG ? 1 : 3;
}

/** Writes the prefix for `length` content bytes at b[p]; returns the prefix size. */
export function writeVarlenPrefix(b: Uint8Array, p: number, length: number): number {
  if (length < VARLEN_LONG) {
    b[p] = length;
    return 1;
  }
  b[p] = VARLEN_LONG;
  b[p + 1] = length >>> 8;
  b[p + 2] = length & 0xff;
  return 3;
}
