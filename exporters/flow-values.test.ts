// Exporters read each value once, as they write it: scanEach and decodeEach hand over the records that
// read, in order, and tell the batch of each one that does not (skipped); what the exporter's own code
// throws is not taken for an unreadable record.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIELD, ScannedRecord } from '../schemas/flow-record-scanner.js';
import { decodeEach, scanEach } from './flow-values.js';
import { exportedRecords, numberedRecord, testBatch } from './testing/records.js';
import type { ExportBatch, ExportedRecord } from './types.js';

/** Records 0..4 at offsets 10..14, the values at 11 and 13 not FlowRecords; `told` gets what the batch is told. */
function mixedBatch(told: number[]): ExportBatch {
  const records: ExportedRecord[] = exportedRecords([0, 1, 2, 3, 4].map((i) => numberedRecord(i)), 10);
  records[1] = { offset: 11, value: Buffer.from('not avro') };
  records[3] = { offset: 13, value: records[3]!.value.subarray(0, 20) };
  return { ...testBatch(records), unreadable: (record) => told.push(record.offset) };
}

const port = (i: number) => 10000 + i;

describe('reading a batch once', () => {
  it('scans the records that read and tells the batch of the others', () => {
    const told: number[] = [];
    const seen: [number, number][] = [];
    scanEach(mixedBatch(told), new ScannedRecord(), (record, r) => seen.push([record.offset, r.num0(FIELD.sourceTransportPort!)]));
    assert.deepEqual(seen, [[10, port(0)], [12, port(2)], [14, port(4)]]);
    assert.deepEqual(told, [11, 13]);
  });

  it('decodes the records that read and tells the batch of the others', () => {
    const told: number[] = [];
    const seen: number[] = [];
    decodeEach(mixedBatch(told), (_, flow) => seen.push(flow.sourceTransportPort as number));
    assert.deepEqual(seen, [port(0), port(2), port(4)]);
    assert.deepEqual(told, [11, 13]);
  });

  it("lets the exporter's own errors through", () => {
    const told: number[] = [];
    assert.throws(() => scanEach(mixedBatch(told), new ScannedRecord(), () => {
      throw new Error('the destination refused');
    }), /the destination refused/);
    assert.deepEqual(told, []);
  });
});
