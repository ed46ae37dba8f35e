// Reads a whole topic through the public API: appends a sentinel record to every partition, then
// consumes with a fresh group until every sentinel arrived, so everything before them was delivered.
// Sentinels (key "sentinel") are left out of the result.
import { randomUUID } from 'node:crypto';
import type { LogRecord, MessageLog } from '../../types.js';

export async function readAll(log: MessageLog, topic: string, timeoutMs = 20_000): Promise<LogRecord[]> {
  const partitions = (await log.admin().fetchTopicOffsets(topic)).length;
  const nonce = randomUUID();
  await log.producer().send(topic, Array.from({ length: partitions }, (_, partition) => ({ key: Buffer.from('sentinel'), value: Buffer.from(nonce), partition })));
  const consumer = log.consumer({ groupId: `read-all-${nonce}` });
  const records: LogRecord[] = [];
  let seen = 0;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  await consumer.subscribe([topic]);
  await consumer.run({
    eachBatch: async (batch) => {
      for (const r of batch.records) {
        if (r.key?.toString() !== 'sentinel') records.push(r);
        else if (r.value?.toString() === nonce && ++seen === partitions) done();
      }
    },
  });
  const timer = setTimeout(done, timeoutMs);
  await finished;
  clearTimeout(timer);
  await consumer.stop();
  if (seen < partitions) throw new Error(`readAll(${topic}): only ${seen} of ${partitions} sentinels arrived in ${timeoutMs} ms`);
  return records;
}
