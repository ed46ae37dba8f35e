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

test('every ASCII byte in a string, non-ASCII and empty strings, IPv6 forms and large integers are written as the reference writes them', () => {
  const reader = flowRecordReader();
  const scanned = new ScannedRecord();
  const every = String.fromCharCode(...Array.from({ length: 128 }, (_, c) => c));
  const strings = [every, '', 'ünï ✓ 🚀', `${every}é`, 'a\bb\fc\u2028'];
  const addresses = ['00000000000000000000000000000000', '20010db8000000000001000000000001', '00000000000000000000ffff0a000001', 'fe800000000000000000000000000001', '20010db8000100020003000400050006'];
  for (let k = 0; k < strings.length; k++) {
    const record = {
      ...randomFlowRecord(seeded(100 + k)),
      sourcePodName: strings[k]!,
      destinationPodLabels: strings[(k + 1) % strings.length]!,
      sourceIPv4Address: null,
      sourceIPv6Address: Buffer.from(addresses[k]!, 'hex'),
      octetTotalCount: Number.MAX_SAFE_INTEGER - 1 - k,
      packetDeltaCount: 2 ** 32 + k,
    };
    const value = flowRecordWriter().encode(record);
    new FlowRecordScanner().scan(value, scanned);
    const room = exactRoom();
    const end = writeFlowRecordJson(scanned, room);
    assert.equal(room.buf.subarray(0, end).toString('utf8'), JSON.stringify(flowRecordToJson(reader.decode(value))) + '\n', `string ${k}`);
  }
});
