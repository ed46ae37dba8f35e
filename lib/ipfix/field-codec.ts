// Reading and writing one field value of any abstract data type (RFC 7011 §6.1, RFC 7012 §3.1),
// including reduced-size encoding (RFC 7011 §6.2): unsigned and signed integers in fewer bytes than
// their natural length, float64 in 4 bytes. The compiled record decoders inline the common fixed cases
// and fall back to these functions for the rest (variable-length encoded numbers, floats, NTP times).
import { IPFIX_ERR, IpfixError } from './errors.js';
import {
  decodeUtf8, encodeUtf8Into, formatIpv4, formatIpv6, formatMac, parseIpv4Into, parseIpv6Into, parseMacInto,
} from './text.js';
import { type AbstractType, type EncodableValue, type FieldValue, VARIABLE_LENGTH } from './types.js';
import { textOf } from './utf8-bytes.js';

/** Seconds between the NTP epoch (1900) and the Unix epoch (1970). */
export const NTP_UNIX_OFFSET = 2208988800;
const TWO32 = 4294967296;
const MAX_SAFE_HI = 0x200000; // hi word below this: hi * 2^32 + lo < 2^53

/** Whether a field of this type may have this (fixed) length in a template. */
export function validFieldLength(type: AbstractType, length: number): boolean {
  if (length === VARIABLE_LENGTH) return true;
  switch (type) {
    case 'unsigned8': case 'signed8': case 'boolean': return length === 1;
    case 'unsigned16': case 'signed16': return length >= 1 && length <= 2;
    case 'unsigned32': case 'signed32': return length >= 1 && length <= 4;
    case 'unsigned64': case 'signed64': return length >= 1 && length <= 8;
    case 'float32': case 'dateTimeSeconds': case 'ipv4Address': return length === 4;
    case 'float64': return length === 4 || length === 8;
    case 'macAddress': return length === 6;
    case 'ipv6Address': return length === 16;
    case 'dateTimeMilliseconds': case 'dateTimeMicroseconds': case 'dateTimeNanoseconds': return length === 8;
    case 'basicList': return length >= 5;
    case 'subTemplateList': return length >= 3;
    case 'subTemplateMultiList': return length >= 1;
    case 'string': case 'octetArray': return true;
  }
}

export function readUnsigned(b: Uint8Array, p: number, len: number): number | bigint {
  if (len <= 6) {
    let v = 0;
    for (let i = 0; i < len; i++) v = v * 256 + (b[p + i] as number);
    return v;
  }
  let hi = 0;
  for (let i = 0; i < len - 4; i++) hi = hi * 256 + (b[p + i] as number);
  const q = p + len - 4;
  const lo = (b[q] as number) * 0x1000000 + (((b[q + 1] as number) << 16) | ((b[q + 2] as number) << 8) | (b[q + 3] as number));
  return hi < MAX_SAFE_HI ? hi * TWO32 + lo : (BigInt(hi) << 32n) | BigInt(lo);
}

export function readSigned(b: Uint8Array, p: number, len: number): number | bigint {
  const u = readUnsigned(b, p, len);
  if (((b[p] as number) & 0x80) === 0) return u;
  if (typeof u === 'number' && len <= 6) return u - 2 ** (8 * len);
  const v = BigInt.asIntN(len * 8, BigInt(u));
  return v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v;
}

const f64 = new Float64Array(1);
const f64b = new Uint8Array(f64.buffer);
const f32 = new Float32Array(1);
const f32b = new Uint8Array(f32.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function readFloat(b: Uint8Array, p: number, len: number): number {
  const [arr, bytes] = len === 4 ? [f32, f32b] : [f64, f64b];
  for (let i = 0; i < len; i++) bytes[littleEndian ? len - 1 - i : i] = b[p + i] as number;
  return arr[0] as number;
}

function writeFloat(b: Uint8Array, p: number, len: number, v: number): void {
  const [arr, bytes] = len === 4 ? [f32, f32b] : [f64, f64b];
  arr[0] = v;
  for (let i = 0; i < len; i++) b[p + i] = bytes[littleEndian ? len - 1 - i : i] as number;
}

function readU32(b: Uint8Array, p: number): number {
  return (b[p] as number) * 0x1000000 + (((b[p + 1] as number) << 16) | ((b[p + 2] as number) << 8) | (b[p + 3] as number));
}

/** NTP timestamp (RFC 7011 §6.1.9/10) → bigint ns since the Unix epoch; microseconds rounded to µs. */
export function readNtp(b: Uint8Array, p: number, micro: boolean): bigint {
  const sec = BigInt(readU32(b, p) - NTP_UNIX_OFFSET);
  const frac = BigInt(readU32(b, p + 4));
  if (micro) return sec * 1_000_000_000n + ((frac * 1_000_000n + 0x80000000n) >> 32n) * 1000n;
  return sec * 1_000_000_000n + ((frac * 1_000_000_000n + 0x80000000n) >> 32n);
}

export function writeNtp(b: Uint8Array, p: number, ns: bigint): void {
  let sec = ns / 1_000_000_000n;
  let rem = ns % 1_000_000_000n;
  if (rem < 0n) {
    rem += 1_000_000_000n;
    sec -= 1n;
  }
  writeUnsigned(b, p, 4, Number(sec) + NTP_UNIX_OFFSET);
  writeUnsigned(b, p + 4, 4, Number(((rem << 32n) + 500_000_000n) / 1_000_000_000n));
}

function badLength(type: AbstractType, len: number): IpfixError {
  return new IpfixError(IPFIX_ERR.BAD_FIELD_LENGTH, `a ${type} value cannot be ${len} bytes long`, { type, length: len });
}

/**
 * Reads one value of `type` stored in b[p..p+len). Lists are not handled here (see lists.ts).
 * Throws IpfixError (BAD_FIELD_LENGTH, BAD_BOOLEAN) without position context: the caller adds it.
 */
export function readValue(type: AbstractType, b: Uint8Array, p: number, len: number): FieldValue {
  if (!validFieldLength(type, len)) throw badLength(type, len);
  switch (type) {
    case 'unsigned8': case 'unsigned16': case 'unsigned32': case 'unsigned64': return readUnsigned(b, p, len);
    case 'signed8': case 'signed16': case 'signed32': case 'signed64': return readSigned(b, p, len);
    case 'float32': case 'float64': return readFloat(b, p, len);
    case 'boolean': return readBoolean(b[p] as number);
    case 'macAddress': return formatMac(b, p);
    case 'string': return decodeUtf8(b, p, len);
    case 'octetArray': return copyBytes(b, p, len);
    case 'dateTimeSeconds': return readU32(b, p);
    case 'dateTimeMilliseconds': return readUnsigned(b, p, 8);
    case 'dateTimeMicroseconds': return readNtp(b, p, true);
    case 'dateTimeNanoseconds': return readNtp(b, p, false);
    case 'ipv4Address': return formatIpv4(b, p);
    case 'ipv6Address': return formatIpv6(b, p);
    case 'basicList': case 'subTemplateList': case 'subTemplateMultiList':
      throw new IpfixError(IPFIX_ERR.BAD_LIST, `readValue cannot decode ${type}; use the list decoder`);
  }
}

/** A copy as a plain Uint8Array (Buffer#slice would return a view of the message, and a Buffer). */
export function copyBytes(b: Uint8Array, p: number, len: number): Uint8Array {
  const out = new Uint8Array(len);
  out.set(b.subarray(p, p + len));
  return out;
}

export function readBoolean(v: number): boolean {
  if (v === 1) return true;
  if (v === 2) return false;
  throw new IpfixError(IPFIX_ERR.BAD_BOOLEAN, `boolean value ${v} is neither 1 (true) nor 2 (false)`, { value: v });
}

function badValue(type: AbstractType, len: number, value: unknown): IpfixError {
  const shown = typeof value === 'bigint' ? `${value}n` : typeof value === 'string' ? JSON.stringify(value) : String(value);
  return new IpfixError(IPFIX_ERR.BAD_VALUE, `${shown} is not a valid ${type} in ${len} bytes`, { type, length: len });
}

export function writeUnsigned(b: Uint8Array, p: number, len: number, value: number | bigint): void {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 2 ** (8 * len) && value <= Number.MAX_SAFE_INTEGER) {
    let v = value;
    for (let i = len - 1; i >= 0; i--) {
      b[p + i] = v % 256;
      v = Math.floor(v / 256);
    }
    return;
  }
  if (typeof value === 'bigint' && value >= 0n && value < 1n << BigInt(8 * len)) {
    let v = value;
    for (let i = len - 1; i >= 0; i--) {
      b[p + i] = Number(v & 0xffn);
      v >>= 8n;
    }
    return;
  }
  throw badValue('unsigned64', len, value);
}

function writeSigned(b: Uint8Array, p: number, len: number, value: number | bigint): void {
  const bits = BigInt(8 * len);
  const v = typeof value === 'bigint' ? value : Number.isInteger(value) ? BigInt(value) : undefined;
  if (v === undefined || v < -(1n << (bits - 1n)) || v >= 1n << (bits - 1n)) throw badValue('signed64', len, value);
  writeUnsigned(b, p, len, BigInt.asUintN(8 * len, v));
}

/** Writes a fixed-size value into b[p..p+len). Throws IpfixError BAD_VALUE when it does not fit. */
export function writeValue(type: AbstractType, b: Uint8Array, p: number, len: number, value: EncodableValue): void {
  switch (type) {
    case 'unsigned8': case 'unsigned16': case 'unsigned32': case 'unsigned64': case 'dateTimeSeconds': case 'dateTimeMilliseconds':
      if (typeof value !== 'number' && typeof value !== 'bigint') throw badValue(type, len, value);
      return writeUnsigned(b, p, len, value);
    case 'signed8': case 'signed16': case 'signed32': case 'signed64':
      if (typeof value !== 'number' && typeof value !== 'bigint') throw badValue(type, len, value);
      return writeSigned(b, p, len, value);
    case 'float32': case 'float64':
      if (typeof value !== 'number') throw badValue(type, len, value);
      return writeFloat(b, p, len, value);
    case 'boolean':
      if (typeof value !== 'boolean') throw badValue(type, len, value);
      b[p] = value ? 1 : 2;
      return;
    // Addresses as text, or as their bytes in network order (what FlowRecords hold: no text round trip).
    case 'macAddress':
      if (value instanceof Uint8Array && value.length === 6) return b.set(value, p);
      if (typeof value !== 'string' || !parseMacInto(value, b, p)) throw badValue(type, len, value);
      return;
    case 'ipv4Address':
      if (value instanceof Uint8Array && value.length === 4) return b.set(value, p);
      if (typeof value !== 'string' || !parseIpv4Into(value, b, p)) throw badValue(type, len, value);
      return;
    case 'ipv6Address':
      if (value instanceof Uint8Array && value.length === 16) return b.set(value, p);
      if (typeof value !== 'string' || !parseIpv6Into(value, b, p)) throw badValue(type, len, value);
      return;
    case 'dateTimeMicroseconds': case 'dateTimeNanoseconds':
      if (typeof value !== 'bigint') throw badValue(type, len, value);
      return writeNtp(b, p, value);
    case 'string': {
      const text = textOf(value);
      if (typeof text !== 'string') throw badValue(type, len, value);
      const n = encodeUtf8Into(text, b, p, len);
      if (n < 0) throw badValue(type, len, value);
      b.fill(0, p + n, p + len); // a fixed-length string shorter than its field is padded with NULs
      return;
    }
    case 'octetArray':
      if (!(value instanceof Uint8Array) || value.length !== len) throw badValue(type, len, value);
      b.set(value, p);
      return;
    case 'basicList': case 'subTemplateList': case 'subTemplateMultiList':
      throw badValue(type, len, value);
  }
}
