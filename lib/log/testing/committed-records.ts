// Every record a read_committed reader sees in a topic, read from the start of each partition to its end
// now: what tests compare once a run has drained.
import type { LogRecord, MessageLog } from '../types.js';

/** In offset order per partition, partitions in the order the log lists them. */
export async function committedRecords(log: MessageLog, topic: string): Promise<LogRecord[]> {
  const partitions = (await log.admin().fetchTopicOffsets(topic)).map((p) => p.partition);
  const reader = log.reader();
  const out: LogRecord[] = [];
  try {
    for (const partition of partitions) {
      for (let next = 0; ;) {
        const r = await reader.fetch({ topic, partition }, next);
        out.push(...r.records);
        next = r.next;
        if (next >= r.highWatermark) break;
      }
    }
  } finally {
    await reader.close();
  }
  return out;
}
