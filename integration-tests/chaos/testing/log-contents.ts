// What the log holds at the end of a chaos run: every record of flows.raw (clock ticks left out) and every
// committed record of flows.processed, with their keys, read from the start of every partition.
import { committedRecords } from '../../../lib/log/testing/committed-records.js';
import type { MessageLog } from '../../../lib/log/types.js';
import { type FlowRecord, flowRecordReader } from '../../../schemas/flow-record.js';

export interface KeyedRecord {
  /** The flow key, hex: the processor's unit of aggregation. */
  readonly key: string;
  readonly partition: number;
  readonly offset: number;
  readonly record: FlowRecord;
}

/** Every FlowRecord of `topic` in offset order per partition (read_committed). */
export async function readTopic(log: MessageLog, topic: string): Promise<KeyedRecord[]> {
  const decoder = flowRecordReader();
  // A clock tick: no key, no value, ingest's time in a header.
  return (await committedRecords(log, topic)).flatMap((rec) => (rec.value === null ? [] : [{ key: rec.key?.toString('hex') ?? '', partition: rec.partition, offset: rec.offset, record: decoder.decode(rec.value) }]));
}
