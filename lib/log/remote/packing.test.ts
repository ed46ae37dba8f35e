import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LogRecord, ProduceRecord } from '../types.js';
import { BatchRecord } from '../batch-record.js';
import { pack, unpackBatchRecords, unpackLogRecords, unpackProduceRecords } from './packing.js';

const b = (s: string) => Buffer.from(s);

test('log records come back field for field: null keys and tombstones, headers on some, two topics', () => {
  const records: LogRecord[] = [
    { topic: 'flows.raw', partition: 3, offset: 7, key: b('k1'), value: b('v1'), timestamp: 1_796_000_000_123, headers: { a: b('x'), bb: b('') } },
    { topic: 'flows.raw', partition: 3, offset: 8, key: null, value: b('v2'), timestamp: 1, headers: {} },
    { topic: 'processor.state', partition: 0, offset: 2 ** 40, key: b('k3'), value: null, timestamp: 2, headers: { c: b('yz') } },
  ];
  const back = unpackLogRecords(pack(records));
  assert.deepEqual(back, records);
  assert.ok(back.every((r) => r.value === null || Buffer.isBuffer(r.value)), 'Buffers, not Uint8Arrays');
});

test('produce records keep what was absent absent (timestamp, partition, headers)', () => {
  const records: ProduceRecord[] = [
    { key: b('k'), value: b('v') },
    { key: null, value: null, timestamp: 5, partition: 2, headers: { h: b('1') } },
    { key: b(''), value: b('w'), partition: 0 },
  ];
  assert.deepEqual(unpackProduceRecords(pack(records)), records);
});

test('no records pack to empty arrays and come back as none', () => {
  assert.deepEqual(unpackLogRecords(pack([])), []);
});

/** Records read in place from one buffer, as a consumer's batch is: key and value anywhere in it, framing between. */
function inPlace(bytes: Buffer, fields: readonly [key: [number, number], value: [number, number], headers?: Record<string, Buffer>][]): BatchRecord[] {
  return fields.map(([[ks, kl], [vs, vl], headers], i) => new BatchRecord('flows.raw', 1, 100 + i, 1_796_000_000_000 + i, headers ?? {}, bytes, ks, kl, vs, vl));
}

const fieldsOf = (r: LogRecord) => ({ topic: r.topic, partition: r.partition, offset: r.offset, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers });

test('records read in place from one buffer cross as its span: field for field, in place or as plain records', () => {
  const bytes = b('..k1|value-one..|v2..k3..!');
  const records = inPlace(bytes, [
    [[2, 2], [5, 9]],
    [[0, -1], [17, 2]],
    [[21, 2], [0, -1], { h: b('hdr') }],
  ]);
  const packed = pack(records);
  assert.equal(packed.bytes.byteLength, 23 - 2 + 3, 'the span from the first key to the last, and the header after it');
  const inPlaceBack = unpackBatchRecords(packed);
  assert.ok(inPlaceBack.every((r) => r instanceof BatchRecord && r.bytes === inPlaceBack[0]!.bytes), 'one buffer for all, no view per record');
  assert.deepEqual(inPlaceBack.map(fieldsOf), records.map(fieldsOf));
  assert.deepEqual(unpackLogRecords(pack(records)).map(fieldsOf), records.map(fieldsOf));
});

test('records read in place from different buffers are copied one by one', () => {
  const records = [...inPlace(b('xxAByyCD'), [[[2, 2], [6, 2]]]), ...inPlace(b('EF-GHI'), [[[0, 2], [3, 3]]])];
  const packed = pack(records);
  assert.equal(packed.bytes.byteLength, 9, 'keys and values only');
  assert.deepEqual(unpackBatchRecords(packed).map(fieldsOf), records.map(fieldsOf));
});
