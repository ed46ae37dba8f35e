// The batch codec: round trips of every field, including the varint long forms (large and negative
// timestamp deltas, long keys), Kafka's header layout, CRC detection of damage, and control markers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { LogRecord } from './types.js';
import {
  BATCH_HEADER_SIZE,
  NO_PRODUCER,
  batchIsValid,
  batchSizeAt,
  controlTypeOf,
  decodeRecords,
  encodeBatch,
  encodeControlBatch,
  readBatchHeader,
  setBaseOffset,
} from './record-batch.js';

const decode = (buf: Buffer, from = 0, to = Infinity, max = Infinity): LogRecord[] => {
  const out: LogRecord[] = [];
  decodeRecords(buf, 0, 't', 3, from, to, out, max);
  return out;
};

test('records round-trip with their keys, values, timestamps and headers', () => {
  const record = fc.record({
    key: fc.option(fc.uint8Array({ maxLength: 20_000 }).map((a) => Buffer.from(a))),
    value: fc.option(fc.uint8Array({ maxLength: 3000 }).map((a) => Buffer.from(a))),
    timestamp: fc.integer({ min: 0, max: 2 ** 50 }),
    headers: fc.dictionary(fc.stringMatching(/^[a-z0-9-]{1,12}$/), fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)), { maxKeys: 3 }),
  });
  fc.assert(
    fc.property(fc.array(record, { minLength: 1, maxLength: 20 }), fc.integer({ min: 0, max: 2 ** 52 }), (records, base) => {
      const buf = encodeBatch(records.map((r, i) => ({ ...r, offsetDelta: i })), records.length - 1, NO_PRODUCER, 0);
      setBaseOffset(buf, base);
      assert.equal(batchSizeAt(buf, 0), buf.length);
      assert.ok(batchIsValid(buf, 0, buf.length));
      const header = readBatchHeader(buf, 0);
      assert.deepEqual([header.baseOffset, header.lastOffset, header.recordsCount, header.control, header.transactional], [base, base + records.length - 1, records.length, false, false]);
      assert.equal(header.maxTimestamp, Math.max(...records.map((r) => r.timestamp)));
      const got = decode(buf);
      assert.equal(got.length, records.length);
      got.forEach((r, i) => {
        const want = records[i]!;
        assert.deepEqual([r.offset, r.timestamp, r.topic, r.partition], [base + i, want.timestamp, 't', 3]);
        assert.deepEqual(r.key, want.key);
        assert.deepEqual(r.value, want.value);
        assert.deepEqual({ ...r.headers }, { ...want.headers });
      });
    }),
    { numRuns: 200 },
  );
});

test('the header is Kafka\'s v2 layout: magic 2, batchLength excluding the first 12 bytes, CRC-32C from attributes on', () => {
  const buf = encodeBatch([{ offsetDelta: 0, timestamp: 1000, key: null, value: Buffer.from('v'), headers: undefined }], 0, { producerId: 42, producerEpoch: 3, transactional: true }, 0);
  assert.equal(buf[16], 2);
  assert.equal(buf.readInt32BE(8), buf.length - 12);
  assert.equal(buf.readInt16BE(21) & 0x10, 0x10, 'transactional bit');
  assert.equal(Number(buf.readBigInt64BE(43)), 42);
  assert.equal(buf.readInt16BE(51), 3);
  assert.ok(buf.length > BATCH_HEADER_SIZE);
  setBaseOffset(buf, 123_456);
  assert.ok(batchIsValid(buf, 0, buf.length), 'the base offset is outside the CRC, so it can be assigned on append');
  buf[buf.length - 1]! ^= 1;
  assert.ok(!batchIsValid(buf, 0, buf.length), 'a flipped bit fails the CRC');
});

test('decodeRecords honours the offset window and the record limit, keeping compacted offset gaps', () => {
  const records = [0, 2, 5, 9].map((offsetDelta) => ({ offsetDelta, timestamp: 5, key: Buffer.from(`k${offsetDelta}`), value: null, headers: undefined }));
  const buf = encodeBatch(records, 9, NO_PRODUCER, 0);
  setBaseOffset(buf, 100);
  assert.equal(readBatchHeader(buf, 0).lastOffset, 109);
  assert.deepEqual(decode(buf).map((r) => r.offset), [100, 102, 105, 109]);
  assert.deepEqual(decode(buf, 101, 106).map((r) => r.offset), [102, 105]);
  assert.deepEqual(decode(buf, 0, Infinity, 2).map((r) => r.offset), [100, 102]);
});

test('a record without offset delta or timestamp gets its index and the batch\'s time', () => {
  const buf = encodeBatch([{ key: null, value: Buffer.from('a') }, { key: null, value: Buffer.from('b'), timestamp: 7 }, { key: null, value: null }], 2, NO_PRODUCER, 1_000);
  assert.deepEqual(decode(buf).map((r) => [r.offset, r.timestamp]), [[0, 1_000], [1, 7], [2, 1_000]]);
  assert.equal(readBatchHeader(buf, 0).maxTimestamp, 1_000);
});

test('control batches carry the commit or abort type', () => {
  for (const type of ['commit', 'abort'] as const) {
    const buf = encodeControlBatch(type, { producerId: 7, producerEpoch: 0, transactional: true }, 1);
    const header = readBatchHeader(buf, 0);
    assert.ok(header.control && header.transactional);
    assert.equal(controlTypeOf(buf, 0), type);
  }
});
