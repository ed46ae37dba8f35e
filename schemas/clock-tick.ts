// The clock ticks of flows.raw: ingest writes one to every partition at a steady pace, so that the
// processor's receive clock (processor/aggregate/clock.ts) moves while a partition receives no record, and
// a quiet partition's flows still expire, from the log alone (a replay sees the same ticks). A tick is a
// record without key or value and with one header holding ingest's time; FlowRecord readers skip it as
// they skip any record without a value.
import type { LogRecord, ProduceRecord } from '../lib/log/types.js';

export const CLOCK_TICK_HEADER = 'flowagg-clock';

export function clockTick(partition: number, now: number): ProduceRecord {
  const time = Buffer.alloc(8);
  time.writeBigUInt64BE(BigInt(Math.max(0, Math.floor(now))));
  return { key: null, value: null, partition, timestamp: now, headers: { [CLOCK_TICK_HEADER]: time } };
}

/** The time a tick carries, or undefined for a record that is not a tick. */
export function clockTickTime(record: LogRecord): number | undefined {
  // The header first: a record's value may be made on demand (lib/log/batch-record.ts).
  const time = record.headers[CLOCK_TICK_HEADER];
  if (time === undefined || record.value !== null) return undefined;
  return time.length === 8 ? Number(time.readBigUInt64BE()) : undefined;
}
