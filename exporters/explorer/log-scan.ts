// Reading a time range of a topic for one query (flow search, a flow's exports, the path view): from
// the offsets the log finds by timestamp, through the log's group-less reader, never more than the
// query's budget of records. A range holding more than the budget is read from its newest end: each
// partition gives its share of the budget to its last records before the range's end, and the answer
// says from when on the range was covered.
import type { Admin, LogRecord, Reader } from '../../lib/log/types.js';
import type { ScanInfo } from './api-types.js';
import { explorerMetrics } from './metrics.js';

/**
 * A record is logged after the end of the interval it counts: its flow's next export, up to the inactive
 * timeout later (Antrea's 90 s, and the processor's lateness). The range's end is read this much further.
 */
export const LOG_LAG_MS = 300_000;
/** Nodes' clocks run a little ahead of the collector's: the range's start is read this much earlier. */
export const CLOCK_SKEW_MS = 60_000;
const FETCH_RECORDS = 5000;

export interface ScanRequest {
  readonly topic: string;
  /** Default: every partition of the topic. */
  readonly partitions?: readonly number[];
  readonly from: number;
  readonly to: number;
  /** Records read at most, over every partition. */
  readonly budget: number;
}

export interface LogAccess {
  readonly reader: Reader;
  readonly admin: Admin;
}

export async function scanLog(log: LogAccess, req: ScanRequest, visit: (record: LogRecord) => void): Promise<ScanInfo> {
  const starts = await log.admin.fetchOffsetsByTimestamp(req.topic, Math.max(0, req.from - CLOCK_SKEW_MS));
  const ends = new Map((await log.admin.fetchOffsetsByTimestamp(req.topic, req.to + LOG_LAG_MS)).map((o) => [o.partition, o.offset]));
  const selected = starts.filter((s) => req.partitions === undefined || req.partitions.includes(s.partition));
  const share = Math.max(1, Math.floor(req.budget / Math.max(1, selected.length)));
  let scanned = 0;
  let complete = true;
  let coveredFrom = req.from;
  await Promise.all(
    selected.map(async ({ partition, offset: first }) => {
      const end = ends.get(partition) ?? first;
      const cut = end - first > share;
      let offset = cut ? end - share : first;
      let firstSeen = true;
      while (offset < end) {
        const r = await log.reader.fetch({ topic: req.topic, partition }, offset, { maxRecords: Math.min(FETCH_RECORDS, end - offset) });
        for (const record of r.records) {
          if (record.offset >= end) break;
          if (cut && firstSeen) {
            complete = false;
            coveredFrom = Math.max(coveredFrom, record.timestamp);
          }
          firstSeen = false;
          scanned++;
          visit(record);
        }
        if (r.next <= offset) break;
        offset = r.next;
      }
    }),
  );
  explorerMetrics.scanned.inc(scanned);
  return { scanned, complete, coveredFrom };
}
