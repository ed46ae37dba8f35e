import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LineRoom } from '../lib/ascii-bytes.js';
import { flowRecordReader, flowRecordWriter } from './flow-record.js';
import { flowRecordToJson } from './flow-record-json.js';
import { writeFlowRecordJson } from './flow-record-json-writer.js';
import { FlowRecordScanner, ScannedRecord } from './flow-record-scanner.js';
import { randomFlowRecord, seeded } from './testing/random-records.js';

/** A room of exactly the size asked for, so that a line longer than its bound cannot pass. */
function exactRoom(): LineRoom & { buf: Buffer } {
  return {
    length: 0,
    buf: Buffer.alloc(0),
    room(bytes: number) {
      this.buf = Buffer.alloc(bytes);
      return this.buf;
    },
  };
}

test('the compiled JSON line is JSON.stringify(flowRecordToJson(record)), byte for byte, on random records', () => {
  const writer = flowRecordWriter();
  const reader = flowRecordReader();
  const scanner = new FlowRecordScanner();
  const scanned = new ScannedRecord();
  for (let seed = 1; seed <= 2000; seed++) {
    const value = writer.encode(randomFlowRecord(seeded(seed)));
    scanner.scan(value, scanned);
    const room = exactRoom();
    const end = writeFlowRecordJson(scanned, room);
    const expected = JSON.stringify(flowRecordToJson(reader.decode(value))) + '\n';
    assert.equal(room.buf.subarray(0, end).toString('utf8'), expected, `seed ${seed}`);
  }
});

test('a typed element repeated in extras is an array of its values, in order', () => {
  const scanned = new ScannedRecord();
  const record = flowRecordReader().decode(flowRecordWriter().encode(randomFlowRecord(seeded(7))));
  const extra = { pen: 0, id: 7, value: Buffer.from([0x1f, 0x90]) };
  const withDuplicate = flowRecordWriter().encode({ ...record, sourceTransportPort: 443, extras: [extra, extra] });
  new FlowRecordScanner().scan(withDuplicate, scanned);
  const room = exactRoom();
  const end = writeFlowRecordJson(scanned, room);
  const line = JSON.parse(room.buf.subarray(0, end).toString('utf8')) as Record<string, unknown>;
  assert.deepEqual(line.sourceTransportPort, [443, 8080, 8080]);
});
