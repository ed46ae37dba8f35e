// Sending RecordRuns (ingest's flows): each record to the partition of its key, as appendRecords routes
// them, then each partition's records in the order sent, in batches cut as appendRecords cuts them, copied
// straight from the runs' buffers into the batch: no object per record on the way.
import { partitionForKey } from '../partitioner.js';
import { type BatchProducer, batchEnd, encodeRunBatch } from '../record-batch.js';
import { checkRuns, runsLength } from '../record-runs.js';
import type { RecordRun } from '../types.js';
import { appendPooled, batchBuffer } from './batch-buffers.js';
import type { TopicRegistry } from './topics.js';

/** Where each record of the runs goes: its partition's records, in order, as run index and bounds index. */
interface Placed {
  /** Partition p's records are k in [starts[p], starts[p + 1]). */
  readonly starts: Int32Array;
  readonly runIndexes: Int32Array;
  readonly ats: Int32Array;
}

function place(runs: readonly RecordRun[], records: number, partitions: number): Placed {
  const routes = new Int32Array(records);
  const starts = new Int32Array(partitions + 1);
  let g = 0;
  for (const { buf, bounds } of runs) {
    for (let at = 0; at < bounds.length; at += 3) {
      const p = partitionForKey(buf, partitions, bounds[at], bounds[at + 1]);
      routes[g++] = p;
      starts[p + 1]!++;
    }
  }
  for (let p = 0; p < partitions; p++) starts[p + 1]! += starts[p]!;
  const next = starts.slice(0, partitions);
  const runIndexes = new Int32Array(records);
  const ats = new Int32Array(records);
  g = 0;
  for (let r = 0; r < runs.length; r++) {
    const { bounds } = runs[r]!;
    for (let at = 0; at < bounds.length; at += 3) {
      const k = next[routes[g++]!]!++;
      runIndexes[k] = r;
      ats[k] = at;
    }
  }
  return { starts, runIndexes, ats };
}

/** Appends the runs' records; resolves once every batch is acknowledged. */
export function appendRuns(topics: TopicRegistry, topic: string, runs: readonly RecordRun[], producer: BatchProducer): Promise<void> {
  const t = topics.get(topic);
  checkRuns(topic, runs);
  const records = runsLength(runs);
  if (records === 0) return Promise.resolve();
  const { starts, runIndexes, ats } = place(runs, records, t.partitions.length);
  const payloadBytes = (k: number) => {
    const { bounds } = runs[runIndexes[k]!]!;
    return bounds[ats[k]! + 2]! - bounds[ats[k]!]!;
  };
  const now = Date.now();
  const acks: Promise<void>[] = [];
  for (let p = 0; p < t.partitions.length; p++) {
    const log = t.partitions[p]!;
    for (let from = starts[p]!, end = starts[p + 1]!; from < end; ) {
      const to = batchEnd(from, end, payloadBytes);
      const batch = encodeRunBatch(runs, runIndexes, ats, from, to, producer, now, batchBuffer);
      acks.push(appendPooled(log, batch, { producerId: producer.producerId, transactional: producer.transactional, recordsCount: to - from }).acknowledged);
      from = to;
    }
  }
  return Promise.all(acks).then(() => undefined);
}
