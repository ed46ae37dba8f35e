// Reading IPFIX field values from their bytes (big-endian, RFC 7011 §6.1; reduced-size encoding §6.2) as the
// transcoder needs them: as JS numbers, NaN where a value is not a safe integer, and times as the IPFIX codec reads
// them (lib/ipfix/field-codec.ts) so that the transcoder and the codec-based builder agree.
import { NTP_UNIX_OFFSET } from '../../lib/ipfix/field-codec.js';
import { MAX_LONG } from '../../schemas/avro-binary.js';

const TWO32 = 4294967296;
const MAX_SAFE_HI = 0x200000;

/** v when a FlowRecord long can hold it, else NaN. */
export function limitLong(v: number): number {
  return v <= MAX_LONG && v >= -MAX_LONG ? v : NaN;
}

export function unsignedAt(b: Uint8Array, p: number, len: number): number {
  let v = 0;
  for (let i = 0; i < len; i++) v = v * 256 + (b[p + i] as number);
  return v;
}

export function signedAt(b: Uint8Array, p: number, len: number): number {
  const v = unsignedAt(b, p, len);
  return (b[p] as number) & 0x80 ? v - 2 ** (8 * len) : v;
}

/** A 7- or 8-byte unsigned value; NaN when it is not an avsc long (above MAX_LONG). */
export function safeUnsignedAt(b: Uint8Array, p: number, len: number): number {
  const hi = unsignedAt(b, p, len - 4);
  return hi < MAX_SAFE_HI ? limitLong(hi * TWO32 + unsignedAt(b, p + len - 4, 4)) : NaN;
}

/** An 8-byte unsigned value read through a DataView (the common case of safeUnsignedAt, twice as fast). */
export function safeUnsigned64(v: DataView, p: number): number {
  const hi = v.getUint32(p);
  return hi < MAX_SAFE_HI ? limitLong(hi * TWO32 + v.getUint32(p + 4)) : NaN;
}

/** A 7- or 8-byte signed value; NaN when it is not an avsc long (magnitude above MAX_LONG). */
export function safeSignedAt(b: Uint8Array, p: number, len: number): number {
  if (((b[p] as number) & 0x80) === 0) return safeUnsignedAt(b, p, len);
  // Two's complement magnitude, in two 32-bit halves.
  const hi = (unsignedAt(b, p, len - 4) - 2 ** (8 * (len - 4))) | 0;
  const lo = unsignedAt(b, p + len - 4, 4);
  const mlo = (~lo >>> 0) + 1;
  const mhi = (~hi >>> 0) + (mlo === TWO32 ? 1 : 0);
  return mhi < MAX_SAFE_HI ? limitLong(-(mhi * TWO32 + (mlo % TWO32))) : NaN;
}

/** dateTimeMicroseconds → ms, as floor of the codec's value (NTP fraction rounded to whole µs). */
export function ntpMicrosToMs(b: Uint8Array, p: number): number {
  const micros = Math.floor((unsignedAt(b, p + 4, 4) * 1e6 + 2147483648) / TWO32);
  return (unsignedAt(b, p, 4) - NTP_UNIX_OFFSET) * 1000 + Math.floor(micros / 1000);
}

/** dateTimeNanoseconds → ms: floor((frac·10^9 + 2^31) / 2^32 / 10^6), which is exact in integers as below. */
export function ntpNanosToMs(b: Uint8Array, p: number): number {
  return (unsignedAt(b, p, 4) - NTP_UNIX_OFFSET) * 1000 + Math.floor((unsignedAt(b, p + 4, 4) * 1000 + 2147) / TWO32);
}

/** Whether an IPFIX string has text once trailing NULs are dropped (as the codec reads it). */
export function hasText(b: Uint8Array, p: number, len: number): boolean {
  for (let i = len - 1; i >= 0; i--) if (b[p + i] !== 0) return true;
  return false;
}

/**
 * A SysUpTime time as ms of uptime. In NetFlow, `upTime` is the packet's sysUpTime: the 32-bit counter may
 * have wrapped (every 49.7 days) since the flow's time, so the time is taken as the nearest to it, before or
 * after, modulo 2^32. Without it (IPFIX) the value is the offset itself.
 */
export function upTimeOf(v: number, upTime: number | undefined): number {
  return upTime === undefined ? v : upTime + ((v - upTime) | 0);
}
