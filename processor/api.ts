// The processor's part of the HTTP API (Antrea's apiServer, port 10348): /flowrecords, the aggregation
// state of this instance's partitions, filtered as `antctl get flowrecords` filters (source and
// destination address and port, protocol). Its figures for /recordmetrics are read from its Prometheus
// counters (app/record-metrics.ts).
import { parseIpv4Into, parseIpv6Into } from '../lib/ipfix/text.js';
import { type JsonObject, flowRecordToJson } from '../schemas/flow-record-json.js';
import { aggregatedRecord } from './aggregate/output.js';
import { keyAddress, keyPort, keyProtocol } from './aggregate/flow-key-text.js';
import { I_SOURCE_ADDRESS, I_SOURCE_PORT, I_WIDTH } from './aggregate/columns.js';
import type { Processor } from './index.js';

/** At most this many records per response unless `limit` says otherwise (a million flows is too much JSON for one GET). */
export const DEFAULT_FLOW_RECORDS_LIMIT = 10_000;

export interface FlowRecordsFilter {
  /** Addresses as latin1 bytes (4 or 16), ports and protocol as numbers; undefined matches anything. */
  readonly source?: string;
  readonly destination?: string;
  readonly sourcePort?: number;
  readonly destinationPort?: number;
  readonly protocol?: number;
  readonly limit: number;
}

/** A /flowrecords query that cannot be answered: the HTTP server answers 400 with its message. */
export class FilterError extends Error {
  readonly status = 400;
}

function addressParam(url: URL, name: string): string | undefined {
  const text = url.searchParams.get(name);
  if (text === null || text === '') return undefined;
  const b = Buffer.alloc(text.includes(':') ? 16 : 4);
  if (!(b.length === 16 ? parseIpv6Into(text, b, 0) : parseIpv4Into(text, b, 0))) throw new FilterError(`${name}: "${text}" is not an IPv4 or IPv6 address`);
  return b.toString('latin1');
}

function numberParam(url: URL, name: string, max: number): number | undefined {
  const text = url.searchParams.get(name);
  if (text === null || text === '') return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new FilterError(`${name}: "${text}" is not an integer in 0..${max}`);
  return n;
}

/** The filter of a /flowrecords query: ?srcip=&dstip=&srcport=&dstport=&proto=&limit= (antctl's flag names). */
export function flowRecordsFilter(url: URL): FlowRecordsFilter {
  return {
    source: addressParam(url, 'srcip'),
    destination: addressParam(url, 'dstip'),
    sourcePort: numberParam(url, 'srcport', 65535),
    destinationPort: numberParam(url, 'dstport', 65535),
    protocol: numberParam(url, 'proto', 255),
    limit: numberParam(url, 'limit', Number.MAX_SAFE_INTEGER) ?? DEFAULT_FLOW_RECORDS_LIMIT,
  };
}

/** The flows of this instance that match, as /flowrecords serves them: one JSON object per flow, as pipeline prints records. */
export function flowRecords(processor: Processor, filter: FlowRecordsFilter): JsonObject[] {
  const out: JsonObject[] = [];
  for (const task of processor.tasks()) {
    const ag = task.work.aggregator;
    if (ag === undefined) continue;
    const store = ag.store;
    for (const slot of store.slots()) {
      if (out.length >= filter.limit) return out;
      const key = store.keys[slot]!;
      const override = store.i32[slot * I_WIDTH + I_SOURCE_ADDRESS]!;
      const source = override === 0 ? keyAddress(key, 0) : store.pool.text(override);
      const sourcePort = override === 0 ? keyPort(key, 0) : store.i32[slot * I_WIDTH + I_SOURCE_PORT]!;
      if (filter.source !== undefined && filter.source !== source) continue;
      if (filter.destination !== undefined && filter.destination !== keyAddress(key, 1)) continue;
      if (filter.sourcePort !== undefined && filter.sourcePort !== sourcePort) continue;
      if (filter.destinationPort !== undefined && filter.destinationPort !== keyPort(key, 1)) continue;
      if (filter.protocol !== undefined && filter.protocol !== keyProtocol(key)) continue;
      out.push(flowRecordToJson(aggregatedRecord(store, slot, ag.watermark)));
    }
  }
  return out;
}
