// streamFlows against a fake log whose retention removed the start of a partition while the call read it:
// the lost records show in dropped_count (cumulative), in a response of their own when no flow is left.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Admin, FetchResult, LogRecord, Reader } from '../../lib/log/types.js';
import type { FlowRecord } from '../../schemas/flow-record.js';
import type { FlowObject } from './filter.js';
import { streamFlows } from './stream.js';

function record(offset: number): LogRecord {
  return { topic: 't', partition: 0, offset, key: null, value: Buffer.from([offset]), timestamp: 0, headers: {} };
}

test('records removed by retention before the call read them are counted in dropped_count', async () => {
  // The call starts at offset 0; by its first fetch retention has moved the log start to 5.
  let low = 0;
  const fetches: number[] = [];
  const reader: Reader = {
    async fetch(_tp, offset): Promise<FetchResult> {
      fetches.push(offset);
      const from = Math.max(offset, low);
      const records = from < 8 ? [from, from + 1, from + 2].filter((o) => o < 8).map(record) : [];
      return { records, next: records.length > 0 ? records.at(-1)!.offset + 1 : offset, highWatermark: 8 };
    },
    close: async () => {},
  };
  const admin = {
    fetchTopicOffsets: async () => {
      const result = [{ partition: 0, low, high: 8 }];
      low = 5;
      return result;
    },
  } as unknown as Admin;
  const responses: { flows: FlowObject[]; dropped: number }[] = [];
  await streamFlows(
    { matches: (f) => Number((f.ipfix as { sequence_number: number }).sequence_number) !== 6, sinceMs: undefined, maxCount: 0, follow: false },
    {
      reader, admin, topic: 't', batchFlows: 100, waitMs: 1, ended: () => false, warn: () => {},
      decode: (v) => ({ exportTime: 0, sequenceNumber: v[0]!, observationDomainId: 0, exporterAddress: '' }) as unknown as FlowRecord,
      send: async (flows, dropped) => void responses.push({ flows, dropped }),
    },
  );
  assert.deepEqual(fetches.slice(0, 3), [0, 8, 8]);
  // Offsets 0..4 lost; 5 and 7 sent (6 filtered out).
  assert.deepEqual(responses.map((r) => [r.flows.map((f) => (f.ipfix as { sequence_number: number }).sequence_number), r.dropped]), [[[5, 7], 5]]);
});
