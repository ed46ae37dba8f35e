// The least a processor can do per record on the embedded log: every input record read as the processor
// reads it (in place, read_committed, batches of 5,000) and written back unchanged to an output topic in
// transactions of the processor's size (20,000 records with their input offsets), with no scan and no
// change. With `scan`, each value is also scanned where it lies, as every mode does first. A mode's figure
// set against these says what its own work costs (docs/benchmarks.md, "Processor").
import type { LogRecord, MessageLog, ProduceRecord } from '../lib/log/types.js';
import { scanValue } from '../processor/work.js';
import { FlowRecordScanner, ScannedRecord } from '../schemas/flow-record-scanner.js';
import { type CpuSplit, cpuOfRun } from './types.js';

const BATCH_RECORDS = 5_000;
const COMMIT_RECORDS = 20_000;

/** Copies the `records` records of one-partition `topic` to `out` through transactions, as a processor commits. */
export async function copyThrough(log: MessageLog, topic: string, records: number, label: string, scan: boolean): Promise<CpuSplit> {
  const scanner = new FlowRecordScanner();
  const scanned = new ScannedRecord();
  const out = `floor-out-${label}`;
  const groupId = `floor-${label}`;
  await log.admin().createTopics([{ topic: out, partitions: 1 }]);
  const producer = log.transactionalProducer(`floor-${label}`);
  const consumer = log.consumer({ groupId, isolation: 'read_committed', startFrom: 'earliest', maxBatchRecords: BATCH_RECORDS, valuesInPlace: true });
  await consumer.subscribe([topic]);
  let pending: ProduceRecord[] = [];
  let copied = 0;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => (done = resolve));
  const commit = async (last: LogRecord) => {
    const txn = await producer.begin();
    await txn.send(out, pending);
    await txn.sendOffsets(groupId, [{ topic, partition: last.partition, offset: last.offset + 1 }]);
    await txn.commit();
    copied += pending.length;
    pending = [];
    if (copied === records) done();
  };
  try {
    return await cpuOfRun(records, async () => {
      await consumer.run({
        eachBatch: async (batch) => {
          for (const r of batch.records) {
            if (scan) scanValue(scanner, r, scanned);
            pending.push({ key: r.key, value: r.value });
          }
          if (pending.length >= COMMIT_RECORDS || copied + pending.length === records) await commit(batch.records.at(-1)!);
        },
      });
      await finished;
    });
  } finally {
    await consumer.stop();
    await producer.close();
  }
}
