// How figures read on the page.
import type { FlowRow } from '../api-types.js';

const UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];

/** 1,234,567 → "1.23 MB" (decimal units, as network traffic is counted). */
export function bytes(n: number): string {
  let i = 0;
  while (Math.abs(n) >= 1000 && i < UNITS.length - 1) {
    n /= 1000;
    i++;
  }
  return `${i === 0 ? n : n.toPrecision(3)} ${UNITS[i]}`;
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** An estimate's bound, shown beside a figure when it is not exact. */
export function error(n: number): string {
  return n > 0 ? ` ±${bytes(n)}` : '';
}

export function time(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export const PROTOCOLS: Record<number, string> = { 1: 'ICMP', 6: 'TCP', 17: 'UDP', 58: 'ICMPv6', 132: 'SCTP' };
export const FLOW_TYPES: Record<number, string> = { 1: 'intra-Node', 2: 'inter-Node', 3: 'to external', 4: 'from external' };

export function protocol(n: number): string {
  return PROTOCOLS[n] ?? String(n);
}

/** A flow's 5-tuple, as the path view asks for it. */
export function tuple(r: FlowRow): string {
  return `${r.sourceAddress}:${r.sourcePort} → ${r.destinationAddress}:${r.destinationPort} ${protocol(r.protocol)}`;
}
