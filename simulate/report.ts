// What `flowagg simulate` reports when it ends (stdout: a table for people, JSON for scripts) and once a
// second while it runs (the progress line on stderr).
import { formatTable } from '../lib/table.js';
import { DELTA_COUNTERS, type Sums } from './counters.js';
import type { FlowSums } from './ledger.js';

export interface NodeReport extends Sums {
  readonly name: string;
  readonly observationDomainId: number;
  /** The local address its connections came from, when it bound one. */
  readonly sourceAddress: string | null;
  /** Whether its link was up when the run ended. */
  readonly connected: boolean;
  readonly connects: number;
  readonly messages: number;
  readonly bytes: number;
  readonly lost: number;
  readonly skipped: number;
  readonly lastError: string | null;
}

export interface SimulationReport {
  readonly transport: string;
  readonly target: string;
  readonly startedAt: string;
  /** From the first record due to the end of sending. */
  readonly durationMs: number;
  /** CPU time the simulator used meanwhile (user and system): near durationMs means it could not go faster. */
  readonly cpuSeconds: number;
  readonly flows: { readonly concurrent: number; readonly recordsPerFlow: number; readonly exportIntervalS: number; readonly seed: number };
  readonly rate: { readonly target: number; readonly natural: number; readonly achieved: number };
  readonly records: { readonly sent: number; readonly lost: number; readonly skipped: { readonly late: number; readonly unavailable: number } };
  /** The delta counters summed over every record sent. */
  readonly totals: Sums;
  readonly nodes: readonly NodeReport[];
  /** With --per-flow: every flow with a record sent, and each reporting Node's sums. */
  readonly flowSums?: readonly FlowSums[];
}

export interface Progress {
  readonly elapsedMs: number;
  readonly sent: number;
  /** Records sent in the last second. */
  readonly lastSecond: number;
  readonly target: number;
  readonly connected: number;
  readonly nodes: number;
  readonly lost: number;
  readonly skipped: number;
  /** How far behind its schedule the simulation is. */
  readonly behindMs: number;
}

const n = (v: number) => Math.round(v).toLocaleString('en-US');

export function progressLine(p: Progress): string {
  const parts = [
    `${Math.floor(p.elapsedMs / 1000)}s`, `${n(p.sent)} records sent`, `${n(p.lastSecond)}/s (target ${n(p.target)}/s)`, `${p.connected}/${p.nodes} Nodes connected`,
  ];
  if (p.lost > 0) parts.push(`${n(p.lost)} lost`);
  if (p.skipped > 0) parts.push(`${n(p.skipped)} skipped`);
  if (p.behindMs >= 1000) parts.push(`${(p.behindMs / 1000).toFixed(1)}s behind`);
  return `simulate ${parts.join(', ')}`;
}

/** Why the run did not deliver everything: records lost, Nodes not connected at the end; empty when it did. */
export function shortfalls(r: SimulationReport): string[] {
  const out: string[] = [];
  if (r.records.lost > 0) out.push(`${n(r.records.lost)} records lost in transit`);
  const down = r.nodes.filter((x) => !x.connected);
  if (down.length > 0) out.push(`${down.length} of ${r.nodes.length} Nodes not connected at the end (${down.slice(0, 3).map((x) => `${x.name}: ${x.lastError ?? 'not connected'}`).join('; ')}${down.length > 3 ? '; …' : ''})`);
  return out;
}

const COUNTER_HEADERS = ['PACKETS', 'OCTETS', 'REVERSE PACKETS', 'REVERSE OCTETS'];

export function summaryText(r: SimulationReport): string {
  const { sent, lost, skipped } = r.records;
  const head =
    `sent ${n(sent)} records in ${(r.durationMs / 1000).toFixed(1)}s (${n(r.rate.achieved)}/s, target ${n(r.rate.target)}/s) over ${r.transport} to ${r.target}` +
    ` from ${r.nodes.length} Nodes, ${n(r.flows.concurrent)} concurrent flows; ${n(lost)} lost, ${n(skipped.late + skipped.unavailable)} skipped` +
    (skipped.late + skipped.unavailable > 0 ? ` (${n(skipped.late)} late, ${n(skipped.unavailable)} while a Node was not ready; their counts went with the next records)` : '');
  const rows = r.nodes.map((x) => [x.name, x.sourceAddress, x.observationDomainId, x.records, x.lost, x.skipped, x.connects, ...DELTA_COUNTERS.map((c) => x[c])]);
  rows.push(['total', null, null, r.totals.records, lost, skipped.late + skipped.unavailable, r.nodes.reduce((a, x) => a + x.connects, 0), ...DELTA_COUNTERS.map((c) => r.totals[c])]);
  return `${head}\n${formatTable(['NODE', 'SOURCE', 'DOMAIN', 'RECORDS', 'LOST', 'SKIPPED', 'CONNECTS', ...COUNTER_HEADERS], rows)}`;
}
