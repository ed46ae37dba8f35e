// The flow search and the flow view: flows.processed read by time (log-scan.ts), each record decoded
// and matched, never more than the query's budget read and, of the matches, only what the asked page
// needs kept (the best `(page + 1) × pageSize` by the sort, pruned as they come).
import type { FlowRecord } from '../../schemas/flow-record.js';
import { flowRecordToJson } from '../../schemas/flow-record-json.js';
import type { FlowResponse, FlowRow, SearchResponse } from './api-types.js';
import { flowFacts } from './flow-facts.js';
import { flowRow } from './flow-row.js';
import { type LogAccess, scanLog } from './log-scan.js';
import { intParam, NotFoundError, oneOf, QueryError, type TimeRange } from './query-params.js';
import { searchPredicate } from './search-filter.js';

export const SORTS = ['time', 'bytes', 'packets'] as const;
export const MAX_PAGE_SIZE = 500;
/** Rows a query keeps at most while it scans: the deepest page it can ask for. */
export const MAX_KEPT_ROWS = 10_000;

export interface SearchDeps extends LogAccess {
  readonly topic: string;
  readonly decode: (value: Buffer) => FlowRecord;
  readonly budget: number;
}

function comparator(sort: (typeof SORTS)[number], descending: boolean): (a: FlowRow, b: FlowRow) => number {
  const sign = descending ? -1 : 1;
  // Ties in log order, so that pages do not overlap.
  return (a, b) => sign * (a[sort] - b[sort]) || a.partition - b.partition || a.offset - b.offset;
}

export async function searchFlows(d: SearchDeps, url: URL, range: TimeRange): Promise<Omit<SearchResponse, 'range'>> {
  const matches = searchPredicate(url);
  const sort = oneOf(url, 'sort', SORTS, 'time');
  const order = oneOf(url, 'order', ['asc', 'desc'], 'desc');
  const pageSize = intParam(url, 'pageSize', 1, MAX_PAGE_SIZE, 50);
  const page = intParam(url, 'page', 0, Math.floor(MAX_KEPT_ROWS / pageSize) - 1, 0);
  const keep = (page + 1) * pageSize;
  const compare = comparator(sort, order === 'desc');
  let rows: FlowRow[] = [];
  let matched = 0;
  const scan = await scanLog(d, { topic: d.topic, from: range.from, to: range.to, budget: d.budget }, (record) => {
    if (record.value === null) return;
    const r = d.decode(record.value);
    const facts = flowFacts(r, record.timestamp);
    if (facts.time < range.from || facts.time > range.to || !matches(r, facts)) return;
    matched++;
    rows.push(flowRow(r, facts, record.partition, record.offset));
    if (rows.length >= 2 * keep) rows = rows.sort(compare).slice(0, keep);
  });
  rows.sort(compare);
  return { scan, matched, page, pageSize, rows: rows.slice(page * pageSize, keep) };
}

/** One record (by partition and offset) with every field, and every export of its flow in the range. */
export async function flowDetail(d: SearchDeps, url: URL, range: TimeRange): Promise<FlowResponse> {
  const partition = intParam(url, 'partition', 0, 1_000_000, -1);
  const offset = intParam(url, 'offset', 0, Number.MAX_SAFE_INTEGER, -1);
  if (partition < 0 || offset < 0) throw new QueryError('partition and offset are required (a row of /api/v1/flows names them)');
  const fetched = await d.reader.fetch({ topic: d.topic, partition }, offset, { maxRecords: 1 });
  const found = fetched.records.find((r) => r.offset === offset && r.value !== null);
  if (found === undefined) throw new NotFoundError(`no record at offset ${offset} of ${d.topic}-${partition} (removed by retention, or not a flow)`);
  const record = d.decode(found.value!);
  // The flow key the processor wrote the record under: the same for every export of the flow.
  const key = found.key;
  const exports: FlowRow[] = [];
  const scan = await scanLog(d, { topic: d.topic, partitions: [partition], from: range.from, to: range.to, budget: d.budget }, (r) => {
    if (r.value === null || key === null || r.key === null || !r.key.equals(key)) return;
    const other = d.decode(r.value);
    exports.push(flowRow(other, flowFacts(other, r.timestamp), r.partition, r.offset));
  });
  exports.sort((a, b) => a.offset - b.offset);
  return { record: flowRecordToJson(record), row: flowRow(record, flowFacts(record, found.timestamp), partition, offset), exports, scan };
}
