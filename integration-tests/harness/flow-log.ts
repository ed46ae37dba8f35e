// The flow log `flowagg run` writes (JSON lines, schemas/flow-record-json.ts) as a test reads it: its lines,
// and each line's flow by its 5-tuple, spelled the same whatever the text form of its addresses.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseIpv4Into, parseIpv6Into } from '../../lib/ipfix/text.js';

export type Line = Record<string, unknown>;

/** An address as its bytes in hex, however the text spells it. */
function addressKey(address: string): string {
  const b = Buffer.alloc(address.includes(':') ? 16 : 4);
  assert.ok(address.includes(':') ? parseIpv6Into(address, b, 0) : parseIpv4Into(address, b, 0), address);
  return b.toString('hex');
}

export const tupleKey = (src: string, dst: string, protocol: number, srcPort: number, dstPort: number): string =>
  `${addressKey(src)}|${addressKey(dst)}|${protocol}|${srcPort}|${dstPort}`;

export const lineTuple = (l: Line): string =>
  tupleKey(String(l.sourceIPv4Address ?? l.sourceIPv6Address), String(l.destinationIPv4Address ?? l.destinationIPv6Address), Number(l.protocolIdentifier), Number(l.sourceTransportPort), Number(l.destinationTransportPort));

/** The lines of `<dir>/data/flows.log`, where `flowagg run` started in `dir` writes it; none before it exists. */
export function readFlowLog(dir: string): Line[] {
  const path = join(dir, 'data', 'flows.log');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Line);
}

/**
 * Per flow (5-tuple), how many lines name it and the sum of each of `counters` over them: what two
 * destinations that hold the same records agree on exactly, and one holding a record twice or missing
 * one does not. A line gives its addresses as the flow log does (sourceIPv4Address or
 * sourceIPv6Address, either may hold either family), its counters as numbers or decimal text.
 */
export function sumsByFlow(lines: Iterable<Line>, counters: readonly string[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const l of lines) {
    const key = lineTuple(l);
    let sums = out.get(key);
    if (sums === undefined) out.set(key, (sums = new Array<number>(counters.length + 1).fill(0)));
    sums[0]!++;
    counters.forEach((c, i) => (sums[i + 1]! += Number(l[c] ?? 0)));
  }
  return out;
}
