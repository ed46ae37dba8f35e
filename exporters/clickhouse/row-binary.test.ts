import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowRecordReader, flowRecordWriter } from '../../schemas/flow-record.js';
import { FlowRecordScanner, ScannedRecord } from '../../schemas/flow-record-scanner.js';
import { randomFlowRecord, seeded } from '../../schemas/testing/random-records.js';
import { CLICKHOUSE_COLUMNS, type Column } from '../row/columns.js';
import { type FlowRow, toFlowRow } from '../row/flow-row.js';
import { RowBinaryWriter } from './row-binary.js';

/** The reference: toFlowRow's row, each column encoded plainly as RowBinary, values clamped to the column's range. */
function plainRow(row: FlowRow, columns: readonly Column[], batchId: string): Buffer {
  const text = (s: string) => {
    const bytes = Buffer.from(s, 'utf8');
    const len: number[] = [];
    for (let n = bytes.length; ; n >>>= 7) {
      if (n < 0x80) {
        len.push(n);
        break;
      }
      len.push((n & 0x7f) | 0x80);
    }
    return Buffer.concat([Buffer.from(len), bytes]);
  };
  const parts = columns.map((c) => {
    const v = row[c.name];
    if (c.type === 'String') return text(v as string);
    const max = { DateTime: 2n ** 32n - 1n, UInt8: 255n, UInt16: 65535n, UInt64: 2n ** 64n - 1n }[c.type];
    let n = typeof v === 'bigint' ? v : BigInt(Math.floor(Math.max(0, v as number)));
    if (n > max) n = max;
    const out = Buffer.alloc(8);
    out.writeBigUInt64LE(n);
    return out.subarray(0, { DateTime: 4, UInt8: 1, UInt16: 2, UInt64: 8 }[c.type]);
  });
  return Buffer.concat([...parts, text(batchId)]);
}

test('a row written from the scanned record is the plain RowBinary of toFlowRow\'s row, byte for byte, on random records', () => {
  const writer = flowRecordWriter();
  const reader = flowRecordReader();
  const scanner = new FlowRecordScanner();
  const scanned = new ScannedRecord();
  const uuid = '11111111-2222-4333-8444-555555555555';
  for (let seed = 1; seed <= 2000; seed++) {
    const value = writer.encode(randomFlowRecord(seeded(seed)));
    scanner.scan(value, scanned);
    const rows = new RowBinaryWriter(CLICKHOUSE_COLUMNS, 16);
    rows.write(scanned, uuid, `batch-${seed}`);
    assert.deepEqual(rows.take(), plainRow(toFlowRow(reader.decode(value), uuid), CLICKHOUSE_COLUMNS, `batch-${seed}`), `seed ${seed}`);
  }
});

test('a counter beyond 2^53 is read back from extras', () => {
  const value = flowRecordWriter().encode({ ...randomFlowRecord(seeded(3)), octetDeltaCount: null, extras: [{ pen: 0, id: 1, value: Buffer.from('ffffffffffffff01', 'hex') }] });
  const scanned = new ScannedRecord();
  new FlowRecordScanner().scan(value, scanned);
  const rows = new RowBinaryWriter(CLICKHOUSE_COLUMNS.filter((c) => c.name === 'octetDeltaCount'));
  rows.write(scanned, '');
  assert.equal(rows.take().readBigUInt64LE(0), 0xffffffffffffff01n);
});
