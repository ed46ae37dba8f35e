// What the log holds at the end of a chaos run: every record of flows.raw (clock ticks left out) and every
// committed record of flows.processed, with their keys, read from the start of every partition.
import { type MessageLog } from '../../../lib/log/types.js';
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
  const partitions = (await log.admin().fetchTopicOffsets(topic)).map((p) => p.partition);
  const reader = log.reader();
  const decoder = flowRecordReader();
  const out: KeyedRecord[] = [];
  try {
    for (const partition of partitions) {
      for (let next = 0; ;) {
        const r = await reader.fetch({ topic, partition }, next);
        for (const rec of r.records) {
          // A clock tick: no key, no value, ingest's time in a header.
          if (rec.value === null) continue;
          out.push({ key: rec.key?.toString('hex') ?? '', partition, offset: rec.offset, record: decoder.decode(rec.value) });
        }
        next = r.next;
        if (next >= r.highWatermark) break;
      }
    }
  } finally {
    await reader.close();
  }
  return out;
}
