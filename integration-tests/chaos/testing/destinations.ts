// What each destination holds at the end, as rows comparable with the records of flows.processed: the flow
// log's lines are the records' JSON as the exporter writes it; ClickHouse's rows and the IPFIX collector's
// records are projected, with the processed records, onto the columns both sides have (the tuple, the times,
// the counters, and the per-Node counters or the original exporter where the destination carries them).
import { readFileSync } from 'node:fs';
import { toFlowRow } from '../../../exporters/row/flow-row.js';
import { CollectedDecoder } from '../../../exporters/ipfix/testing/exporter.js';
import { formatIpv4, formatIpv6 } from '../../../lib/ipfix/text.js';
import { flowRecordToJson } from '../../../schemas/flow-record-json.js';
import type { FlowRecord } from '../../../schemas/flow-record.js';
import { DELTA_COUNTERS } from '../../../simulate/counters.js';
import type { ClickHouseForTests } from '../../harness/clickhouse.js';
import type { IpfixCollector } from './collector.js';
import type { ChaosMode } from './profile.js';

/** Rows as text, each with how many times it is there. */
export type RowCounts = Map<string, number>;

export function countRows(rows: Iterable<string>): RowCounts {
  const counts: RowCounts = new Map();
  for (const r of rows) counts.set(r, (counts.get(r) ?? 0) + 1);
  return counts;
}

// ---- the flow log ----

export const flowLogRow = (r: FlowRecord): string => JSON.stringify(flowRecordToJson(r));

export function readFlowLogRows(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '');
}

// ---- ClickHouse ----

const CLICKHOUSE_COLUMNS = [
  'sourceIP', 'destinationIP', 'sourceTransportPort', 'destinationTransportPort', 'protocolIdentifier', 'flowStartSeconds', 'flowEndSeconds',
  'flowEndReason', 'packetTotalCount', 'octetTotalCount', ...DELTA_COUNTERS, 'sourcePodName', 'destinationPodName', 'sourceNodeName', 'destinationNodeName', 'flowType',
] as const;
const TIME_COLUMNS = new Set<string>(['flowStartSeconds', 'flowEndSeconds']);

export function clickHouseRow(r: FlowRecord): string {
  const row = toFlowRow(r, '') as unknown as Record<string, unknown>;
  return JSON.stringify(CLICKHOUSE_COLUMNS.map((c) => String(row[c])));
}

export async function readClickHouseRows(server: ClickHouseForTests, database: string): Promise<string[]> {
  const columns = CLICKHOUSE_COLUMNS.map((c) => (TIME_COLUMNS.has(c) ? `toUnixTimestamp(${c})` : c)).join(', ');
  const sql = `SELECT ${columns} FROM ${database}.flows FORMAT JSONCompact`;
  const res = await fetch(`${server.url}/?query=${encodeURIComponent(sql)}`, { method: 'POST' });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`ClickHouse answered ${res.status}: ${text.slice(0, 500)}`);
  return (JSON.parse(text) as { data: unknown[][] }).data.map((values) => JSON.stringify(values.map(String)));
}

export async function dropClickHouseDatabase(server: ClickHouseForTests, database: string): Promise<void> {
  await fetch(`${server.url}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${database}`)}`, { method: 'POST' });
}

// ---- the IPFIX collector ----

const SIDES = ['FromSourceNode', 'FromDestinationNode'] as const;

/** The elements compared: a mode's per-Node counters (Aggregate) or original exporter (Proxy) included. */
function ipfixColumns(mode: ChaosMode): string[] {
  const common = ['sourceTransportPort', 'destinationTransportPort', 'protocolIdentifier', 'flowStartSeconds', 'flowEndSeconds', ...DELTA_COUNTERS];
  return mode === 'Aggregate' ? [...common, ...DELTA_COUNTERS.flatMap((c) => SIDES.map((s) => `${c}${s}`))] : [...common, 'originalObservationDomainId'];
}

const address = (v4: Buffer | null, v6: Buffer | null) => (v4 !== null ? formatIpv4(v4, 0) : v6 !== null ? formatIpv6(v6, 0) : '');

export function ipfixRow(r: FlowRecord, mode: ChaosMode): string {
  const values: Record<string, unknown> = {
    ...(r as unknown as Record<string, unknown>),
    flowStartSeconds: Math.floor((r.flowStartMilliseconds ?? 0) / 1000),
    flowEndSeconds: Math.floor((r.flowEndMilliseconds ?? 0) / 1000),
    originalObservationDomainId: r.originalObservationDomainId ?? r.observationDomainId,
  };
  const source = address(r.sourceIPv4Address, r.sourceIPv6Address);
  const destination = address(r.destinationIPv4Address, r.destinationIPv6Address);
  return JSON.stringify([source, destination, ...ipfixColumns(mode).map((c) => String(values[c] ?? 0))]);
}

export function readIpfixRows(collector: IpfixCollector, mode: ChaosMode): string[] {
  const decoded = new CollectedDecoder(collector.messages());
  decoded.update();
  return decoded.records.map((v) => {
    const text = (x: unknown) => (x === undefined ? '' : String(x));
    const source = text(v.sourceIPv4Address ?? v.sourceIPv6Address);
    const destination = text(v.destinationIPv4Address ?? v.destinationIPv6Address);
    return JSON.stringify([source, destination, ...ipfixColumns(mode).map((c) => String(v[c] ?? 0))]);
  });
}
