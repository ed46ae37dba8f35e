// One GetFlows call (antrea-grpc.md §5.2), read from flows.processed through the log's group-less reader:
// history first, then live records, in rounds that fetch every partition at once. Unlike Antrea's ring
// buffer of 8192 entries, the history is whatever the log's retention keeps: the call starts at each
// partition's oldest record or, with `since`, at the first record written since then (less an hour for
// clocks that disagree). Per round:
// - flows that ended before `since` (or have no end, when `since` is set) are left out, then those that
//   fail a filter; `max_count` cuts the rest and ends the call (OK) once reached;
// - responses hold at most `batchFlows` flows, and one is sent when flows are left or records were lost;
//   `dropped_count` is the call's cumulative count of records it lost: removed by retention before it read
//   them, or unreadable;
// - a round that waited (about 1 s) and found nothing ends a call without `follow` (OK); with `follow` the
//   call runs until the client cancels, max_count, or shutdown (OK).
import { type FlowaggError, errorMessage } from '../../lib/errors.js';
import type { Admin, LogRecord, Reader } from '../../lib/log/types.js';
import type { FlowRecord } from '../../schemas/flow-record.js';
import type { FlowObject } from './filter.js';
import { flowOfRecord } from './flow-of-record.js';

/** A record's clock may run ahead of the end time it carries by this much (Nodes' clocks differ). */
const CLOCK_SKEW_MS = 3_600_000;

export interface GetFlowsQuery {
  readonly matches: (flow: FlowObject) => boolean;
  /** ms since the epoch; undefined when the request has no `since`. */
  readonly sinceMs: number | undefined;
  readonly maxCount: number;
  readonly follow: boolean;
}

export interface StreamDeps {
  readonly reader: Reader;
  readonly admin: Admin;
  readonly topic: string;
  readonly decode: (value: Buffer) => FlowRecord;
  /** Sends one response; resolves when the client can take more (HTTP/2 flow control). */
  send(flows: FlowObject[], droppedCount: number): Promise<void>;
  /** The client went away, or the service is stopping. */
  readonly ended: () => boolean;
  readonly batchFlows: number;
  readonly waitMs: number;
  warn(fields: Record<string, unknown>, msg: string): void;
}

function endSeconds(flow: FlowObject): number | undefined {
  return (flow.end_ts as { seconds?: number } | undefined)?.seconds;
}

export async function streamFlows(q: GetFlowsQuery, d: StreamDeps): Promise<void> {
  const starts = q.sinceMs === undefined
    ? (await d.admin.fetchTopicOffsets(d.topic)).map((p) => ({ partition: p.partition, offset: p.low }))
    : await d.admin.fetchOffsetsByTimestamp(d.topic, Math.max(0, q.sinceMs - CLOCK_SKEW_MS));
  const offsets = new Map(starts.map((s) => [s.partition, s.offset]));
  const sinceSeconds = q.sinceMs === undefined ? undefined : Math.floor(q.sinceMs / 1000);
  let sent = 0;
  let dropped = 0;
  let wait = 0;
  while (!d.ended()) {
    const rounds = await Promise.all([...offsets].map(async ([partition, offset]) => {
      const r = await d.reader.fetch({ topic: d.topic, partition }, offset, { maxRecords: d.batchFlows, maxWaitMs: wait });
      offsets.set(partition, r.next);
      return { partition, offset, records: r.records };
    }));
    let lostNow = 0;
    const records: LogRecord[] = [];
    for (const r of rounds) {
      const first = r.records[0];
      // Reading resumed past the requested offset: retention removed what was there (not a compaction or
      // transaction-marker gap, which can only lie above the log start).
      if (first !== undefined && first.offset > r.offset) lostNow += await removedBelow(d, r.partition, r.offset, first.offset);
      records.push(...r.records);
    }
    if (d.ended()) return;
    if (records.length === 0 && lostNow === 0) {
      if (!q.follow && wait > 0) return;
      wait = d.waitMs;
      continue;
    }
    wait = 0;
    let flows: FlowObject[] = [];
    for (const r of records) {
      let flow: FlowObject;
      try {
        flow = flowOfRecord(d.decode(r.value!));
      } catch (err) {
        lostNow++;
        d.warn({ partition: r.partition, offset: r.offset, err: errorMessage(err), code: (err as FlowaggError).code }, 'skipped an unreadable record of flows.processed');
        continue;
      }
      if (sinceSeconds !== undefined) {
        const end = endSeconds(flow);
        if (end === undefined || end < sinceSeconds) continue;
      }
      if (q.matches(flow)) flows.push(flow);
    }
    if (q.maxCount > 0 && sent + flows.length > q.maxCount) flows = flows.slice(0, q.maxCount - sent);
    dropped += lostNow;
    for (let i = 0; i < flows.length || (i === 0 && lostNow > 0); i += d.batchFlows) {
      const batch = flows.slice(i, i + d.batchFlows);
      await d.send(batch, dropped);
      sent += batch.length;
      if (d.ended()) return;
    }
    if (q.maxCount > 0 && sent >= q.maxCount) return;
  }
}

/** How many records below `resumedAt`, from `from`, retention removed (what lies below the log start now). */
async function removedBelow(d: StreamDeps, partition: number, from: number, resumedAt: number): Promise<number> {
  const low = (await d.admin.fetchTopicOffsets(d.topic)).find((p) => p.partition === partition)?.low ?? from;
  return Math.max(0, Math.min(low, resumedAt) - from);
}
