import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LogRecord, ProduceRecord } from '../types.js';
import { pack, unpackLogRecords, unpackProduceRecords } from './packing.js';

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
