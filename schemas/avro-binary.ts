// Avro binary encoding (spec "Binary Encoding") of the primitives a FlowRecord needs, written straight into a
// byte array: zig-zag varints for int and long, length-prefixed bytes and strings. Callers reserve room first
// (see RecordBuffer), so nothing here checks bounds. Longs must be within ±MAX_LONG: larger values are kept in
// `extras` instead.
import { isUtf8 } from 'node:buffer';

/**
 * The largest long magnitude avsc (with JS numbers) reads and writes: 2^53 − 2, one below
 * Number.MAX_SAFE_INTEGER (avsc's isSafeLong). FlowRecord readers use avsc, so nothing larger is written.
 */
export const MAX_LONG = 9007199254740990;

const TWO31 = 2147483648;
const TWO32 = 4294967296;
/** From this length on a native copy's call overhead pays off. */
const NATIVE_COPY = 64;
const nativeCopy = Buffer.prototype.copy;
const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Writes an unsigned varint (the zig-zag value already applied); returns the position after it. */
export function writeVarint(b: Uint8Array, p: number, zz: number): number {
  if (zz < TWO31) {
    while (zz > 0x7f) {
      b[p++] = (zz & 0x7f) | 0x80;
      zz >>>= 7;
    }
    b[p++] = zz;
    return p;
  }
  // Up to 2^54 (a zig-zagged safe integer): the low 28 bits from the low word, the rest as an int. Float
  // modulo and division per byte would cost ten times more.
  const lo = zz >>> 0;
  b[p++] = (lo & 0x7f) | 0x80;
  b[p++] = ((lo >>> 7) & 0x7f) | 0x80;
  b[p++] = ((lo >>> 14) & 0x7f) | 0x80;
  b[p++] = ((lo >>> 21) & 0x7f) | 0x80;
  let rest = (lo >>> 28) | (Math.floor(zz / TWO32) << 4);
  while (rest > 0x7f) {
    b[p++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  b[p++] = rest;
  return p;
}

/** Avro int or long (any safe integer). */
export function writeLong(b: Uint8Array, p: number, n: number): number {
  return writeVarint(b, p, n >= 0 ? n * 2 : -n * 2 - 1);
}

/**
 * Copies src[start, start+len) to dst[p..], 4 bytes at a time through DataViews of both arrays (dv over dst, sv
 * over src): a JS byte loop costs about 2.5 times more, a native copy's call overhead more still for short runs.
 */
export function copyBytes(dst: Uint8Array, dv: DataView, p: number, src: Uint8Array, sv: DataView, start: number, len: number): number {
  if (len >= NATIVE_COPY) {
    nativeCopy.call(src, dst, p, start, start + len);
    return p + len;
  }
  let i = 0;
  for (; i + 4 <= len; i += 4) dv.setUint32(p + i, sv.getUint32(start + i));
  for (; i < len; i++) dst[p + i] = src[start + i] as number;
  return p + len;
}

/** Writes all of src at dst[p..]; a short one byte by byte, where a native copy's call costs more. */
export function writeAll(dst: Uint8Array, p: number, src: Uint8Array): number {
  if (src.length >= NATIVE_COPY) {
    dst.set(src, p);
    return p + src.length;
  }
  for (let k = 0; k < src.length; k++) dst[p + k] = src[k]!;
  return p + src.length;
}

/** n zero bytes: the encoding of n absent (null) fields in a row. */
export function writeZeros(dst: Uint8Array, dv: DataView, p: number, n: number): number {
  let i = 0;
  for (; i + 4 <= n; i += 4) dv.setUint32(p + i, 0);
  for (; i < n; i++) dst[p + i] = 0;
  return p + n;
}

/** Avro bytes: length, then the bytes. */
export function writeBytes(dst: Uint8Array, dv: DataView, p: number, src: Uint8Array, sv: DataView, start: number, len: number): number {
  return copyBytes(dst, dv, writeVarint(dst, p, len * 2), src, sv, start, len);
}

/**
 * Avro string from IPFIX string bytes, with the IPFIX codec's reading of them (lib/ipfix/text.ts decodeUtf8):
 * trailing NULs dropped (exporters pad), invalid UTF-8 replaced by U+FFFD. Valid UTF-8 is copied as is (checked
 * natively only when a byte is not ASCII); at most 3 bytes are written per input byte, plus 5 for the length.
 */
export function writeIpfixString(dst: Uint8Array, dv: DataView, p: number, src: Uint8Array, sv: DataView, start: number, len: number): number {
  while (len > 0 && src[start + len - 1] === 0) len--;
  const at = writeVarint(dst, p, len * 2);
  let high = 0;
  let i = 0;
  for (; i + 4 <= len; i += 4) {
    const w = sv.getUint32(start + i);
    high |= w;
    dv.setUint32(at + i, w);
  }
  for (; i < len; i++) {
    const c = src[start + i] as number;
    high |= c;
    dst[at + i] = c;
  }
  if ((high & 0x80808080) === 0 || isUtf8(src.subarray(start, start + len))) return at + len;
  const text = Buffer.from(utf8.decode(src.subarray(start, start + len)), 'utf8');
  const q = writeVarint(dst, p, text.length * 2);
  for (let j = 0; j < text.length; j++) dst[q + j] = text[j] as number;
  return q + text.length;
}

/** A DataView over a byte array, made once per array rather than once per record. */
export class ViewCache {
  private bytes: Uint8Array | undefined;
  private view: DataView = new DataView(new ArrayBuffer(0));

  of(b: Uint8Array): DataView {
    if (b !== this.bytes) {
      this.bytes = b;
      this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    }
    return this.view;
  }
}

/** The most bytes writeIpfixString can write for `len` input bytes. */
export function maxStringBytes(len: number): number {
  return 5 + 3 * len;
}
