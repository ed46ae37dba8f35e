// Constant bytes (a JSON line's keys) written by generated code four at a time, as 32-bit stores of
// numbers written into the source, for the flow log's JSON lines writer: the keys are three quarters of
// a line's bytes, and a loop copying them byte by byte from a table, or a native copy per key
// (TypedArray#set), cost more than all the values. A store may write up to 3 bytes past the constant's
// end: the writer's room must allow it, and the value written next overwrites them.
// `flowagg decode`'s JSON lines (app/cli/commands/json-lines.ts) keep their native copy per key: a
// decode of 273,000 records is over before the larger function these stores make is optimised, and
// took 15 % more CPU with them (while 18 % less once optimised).

import { ViewCache } from './view-cache.js';

/** Bytes a store may write past the end of a constant. */
export const STORE_OVERRUN = 3;

const views = new ViewCache();

/** A DataView of `b` (the one made last, while the writer keeps writing into the same buffer). */
export function viewOf(b: Uint8Array): DataView {
  return views.of(b);
}

/**
 * Source that writes `bytes` at `p` through `view` (the generated function's viewOf its buffer) and
 * advances `p` past them: one little-endian 32-bit store of a literal per four bytes.
 */
export function constantStores(bytes: Uint8Array): string {
  const code: string[] = [];
  for (let k = 0; k < bytes.length; k += 4) {
    const word = (bytes[k] ?? 0) | ((bytes[k + 1] ?? 0) << 8) | ((bytes[k + 2] ?? 0) << 16) | ((bytes[k + 3] ?? 0) << 24);
    code.push(`view.setInt32(p + ${k}, ${word}, true);`);
  }
  code.push(`p += ${bytes.length};`);
  return code.join(' ');
}
