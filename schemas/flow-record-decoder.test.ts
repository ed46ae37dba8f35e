import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isFlowaggError } from '../lib/errors.js';
import { AvroWriter } from './avro.js';
import { SCHEMA_BAD_BODY, SCHEMA_UNKNOWN_WRITER } from './errors.js';
import { FLOW_RECORD_SCHEMA, FLOW_RECORD_TYPE, type FlowRecord, flowRecordReader, flowRecordWriter } from './flow-record.js';
import { FlowRecordDecoder } from './flow-record-decoder.js';

const writer = flowRecordWriter();
const reference = flowRecordReader();
const decoder = new FlowRecordDecoder();

/** avsc's random values, with longs kept within the ±2^53 avsc itself reads back. */
function randomRecord(): FlowRecord {
  const r = FLOW_RECORD_TYPE.random() as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(r)) if (typeof v === 'number' && !Number.isSafeInteger(v)) r[k] = Math.trunc(v) % 2 ** 40;
  return r as FlowRecord;
}

/** avsc makes class instances of nested records; the decoder makes plain objects with the same fields. */
const plain = (r: FlowRecord) => ({ ...r, extras: r.extras.map((e) => ({ ...e })) });

test('decodes what avsc decodes, field for field, on random records', () => {
  for (let i = 0; i < 300; i++) {
    const buf = writer.encode(randomRecord());
    assert.deepEqual(plain(decoder.decode(buf)), plain(reference.decode(buf)));
  }
});

// avsc itself writes longs below -2^52 with the wrong sign, so the negative edge stops there.
test('longs at the edges of the safe range and negative ints round-trip', () => {
  const base = reference.decode(writer.encode(randomRecord()));
  for (const v of [0, 1, -1, 63, 64, -64, -65, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 32, 2 ** 53 - 2, -(2 ** 52)]) {
    const r = { ...base, octetDeltaCount: v, sequenceNumber: v, exporterPort: v >= -(2 ** 31) && v < 2 ** 31 ? v : 0 };
    const d = decoder.decode(writer.encode(r));
    assert.equal(d.octetDeltaCount, v);
    assert.equal(d.sequenceNumber, v);
  }
});

test('a truncated body or trailing bytes is FLOWAGG_ERR_SCHEMA_BAD_BODY, not a wrong record', () => {
  const buf = writer.encode(randomRecord());
  for (const bad of [buf.subarray(0, buf.length - 1), buf.subarray(0, 12), Buffer.concat([buf, Buffer.from([0])])]) {
    assert.throws(() => decoder.decode(bad), (e) => isFlowaggError(e, SCHEMA_BAD_BODY));
  }
});

test('values framed with a schema registry id decode with that id, and only with it', () => {
  const record = randomRecord();
  const framed = new AvroWriter<FlowRecord>(FLOW_RECORD_TYPE, FLOW_RECORD_SCHEMA, { kind: 'confluent', schemaId: 7 }).encode(record);
  assert.deepEqual(plain(new FlowRecordDecoder(7).decode(framed)), plain(reference.decode(writer.encode(record))));
  assert.throws(() => decoder.decode(framed), (e) => isFlowaggError(e, SCHEMA_UNKNOWN_WRITER));
});
