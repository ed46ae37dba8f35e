// Writing numbers and ASCII text straight into a byte buffer, for the writers that build lines of
// output in place (`flowagg decode`'s JSON lines, the flow log's lines): a string per value and an
// encode per line cost more than the rest of the work.

export function putAscii(b: Buffer, p: number, s: string): number {
  return p + b.write(s, p, 'latin1');
}

/** Most counters, ports and timestamps: a uint32, digit by digit with 32-bit integer arithmetic. */
export function putUint32(b: Buffer, p: number, n: number): number {
  const digits = n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : n < 10000 ? 4 : n < 100000 ? 5 : n < 1000000 ? 6 : n < 10000000 ? 7 : n < 100000000 ? 8 : n < 1000000000 ? 9 : 10;
  let q = p + digits;
  let x = n;
  do {
    const d = (x / 10) >>> 0;
    b[--q] = 48 + x - d * 10;
    x = d;
  } while (x > 0);
  return p + digits;
}

/** Any finite number as String() (and JSON) spells it: integers up to 2^53 (times in ms, counters) digit by digit, the rest through String(). */
export function putNumber(b: Buffer, p: number, n: number): number {
  if (n >>> 0 === n) return putUint32(b, p, n);
  if (!(n > 0 && n <= Number.MAX_SAFE_INTEGER && Math.floor(n) === n)) return putAscii(b, p, String(n));
  // Above 2^32: the digits above the last nine, then those nine with their leading zeros.
  const high = Math.floor(n / 1e9);
  let low = n - high * 1e9;
  p = putUint32(b, p, high);
  for (let q = p + 8; q >= p; q--) {
    const d = (low / 10) >>> 0;
    b[q] = 48 + low - d * 10;
    low = d;
  }
  return p + 9;
}

/** Where a writer puts a line: a buffer with room for `bytes` more from `length`. */
export interface LineRoom {
  readonly length: number;
  room(bytes: number): Buffer;
}
