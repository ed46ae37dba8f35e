// Writing numbers and ASCII text straight into a byte buffer, for the writers that build lines of
// output in place (`flowagg decode`'s JSON lines, the flow log's lines): a string per value and an
// encode per line cost more than the rest of the work.

export function putAscii(b: Buffer, p: number, s: string): number {
  return p + b.write(s, p, 'latin1');
}

/** "00" to "99", and "0000" to "9999": a division by 10,000 gives four digits, by 100 two. */
const PAIRS = Buffer.from(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0')).join(''), 'latin1');
const QUADS = Buffer.from(Array.from({ length: 10_000 }, (_, i) => String(i).padStart(4, '0')).join(''), 'latin1');

/**
 * Writes the `count` low decimal digits of `x` (a uint32) so that they end at `end`, four per division
 * (a 13-digit time in ms takes three divisions, not seven).
 */
function putDigits(b: Buffer, end: number, x: number, count: number): void {
  // As a uint32 the last digit's `% 10` is an integer remainder; on the double a field's value arrives
  // as, it was a call to fmod, the costliest line of the flow log's JSON writer.
  x >>>= 0;
  let q = end;
  for (; count >= 4; count -= 4) {
    const d = (x / 10_000) >>> 0;
    const quad = (x - d * 10_000) << 2;
    b[--q] = QUADS[quad + 3]!;
    b[--q] = QUADS[quad + 2]!;
    b[--q] = QUADS[quad + 1]!;
    b[--q] = QUADS[quad]!;
    x = d;
  }
  if (count >= 2) {
    const d = (x / 100) >>> 0;
    const pair = (x - d * 100) << 1;
    b[--q] = PAIRS[pair + 1]!;
    b[--q] = PAIRS[pair]!;
    x = d;
    count -= 2;
  }
  if (count === 1) b[q - 1] = 48 + (x % 10);
}

/** Most counters, ports and timestamps: a uint32, digit by digit with 32-bit integer arithmetic. */
export function putUint32(b: Buffer, p: number, n: number): number {
  const digits = n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : n < 10000 ? 4 : n < 100000 ? 5 : n < 1000000 ? 6 : n < 10000000 ? 7 : n < 100000000 ? 8 : n < 1000000000 ? 9 : 10;
  putDigits(b, p + digits, n, digits);
  return p + digits;
}

/** Any finite number as String() (and JSON) spells it: integers up to 2^53 (times in ms, counters) digit by digit, the rest through String(). */
export function putNumber(b: Buffer, p: number, n: number): number {
  if (n >>> 0 === n) return putUint32(b, p, n);
  if (!(n > 0 && n <= Number.MAX_SAFE_INTEGER && Math.floor(n) === n)) return putAscii(b, p, String(n));
  // Above 2^32: the digits above the last nine, then those nine with their leading zeros.
  const high = Math.floor(n / 1e9);
  p = putUint32(b, p, high);
  putDigits(b, p + 9, n - high * 1e9, 9);
  return p + 9;
}

/** Where a writer puts a line: a buffer with room for `bytes` more from `length`. */
export interface LineRoom {
  readonly length: number;
  room(bytes: number): Buffer;
}
