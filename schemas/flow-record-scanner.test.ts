import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import avro from 'avsc';
import { isFlowaggError } from '../lib/errors.js';
import { AvroWriter } from './avro.js';
import { SCHEMA_BAD_BODY, SCHEMA_UNKNOWN_WRITER } from './errors.js';
import { FLOW_RECORD_FIELDS, FLOW_RECORD_SCHEMA, FLOW_RECORD_TYPE, type FlowRecord, flowRecordReader, flowRecordWriter } from './flow-record.js';
import { FIELD, FlowRecordScanner, ScannedRecord } from './flow-record-scanner.js';

type SchemaJson = { fields: { name: string; type: unknown; default?: unknown }[] };

/** Whatever avsc decoded for each field must be what the scanner located. */
function assertSame(scanned: ScannedRecord, record: FlowRecord, fields = FLOW_RECORD_FIELDS.map((f) => f.name)): void {
  for (const name of fields) {
    const i = FIELD[name]!;
    const v = record[name];
    if (v === null || v === undefined) {
      assert.ok(Number.isNaN(scanned.num[i]) && scanned.start[i] === -1, `${name} is null`);
    } else if (typeof v === 'number') {
      assert.equal(scanned.num[i], v, name);
    } else if (typeof v === 'string') {
      const symbols = (FLOW_RECORD_TYPE as unknown as { fields: { name: string; type: { symbols?: string[]; types?: { symbols?: string[] }[] } }[] }).fields.find((f) => f.name === name)!.type;
      const enumSymbols = symbols.symbols ?? symbols.types?.[1]?.symbols;
      if (enumSymbols !== undefined) assert.equal(scanned.num[i], enumSymbols.indexOf(v), name);
      else assert.equal(scanned.text(i), v, name);
    } else if (Buffer.isBuffer(v)) {
      assert.deepEqual(scanned.buf.subarray(scanned.start[i], scanned.start[i]! + scanned.length[i]!), v, name);
    } else if (Array.isArray(v)) {
      assert.equal(scanned.num[i], v.length, `${name} count`);
    }
  }
}

test('the compiled scanner finds every field avsc decodes, on random records', () => {
  const scanner = new FlowRecordScanner();
  const writer = flowRecordWriter();
  const reader = flowRecordReader();
  const r = new ScannedRecord(true);
  for (let n = 0; n < 300; n++) {
    const random = FLOW_RECORD_TYPE.random() as unknown as FlowRecord;
    const value = writer.encode(random);
    scanner.scan(value, r);
    assert.equal(r.spliceable, true);
    assertSame(r, reader.decode(value));
    // `at` delimits each field: re-encoding field i alone gives the bytes between at[i] and at[i + 1].
    const i = FIELD.sourcePodName!;
    const field = (FLOW_RECORD_TYPE as unknown as { fields: { type: avro.Type }[] }).fields[i]!.type.toBuffer(random.sourcePodName);
    assert.deepEqual(value.subarray(r.at[i], r.at[i + 1]), field);
    assert.equal(r.at[FLOW_RECORD_FIELDS.length], value.length);
  }
});

test('a record that asks for no positions (the default) reads the same values, cannot be spliced and leaves `at` as it was', () => {
  const scanner = new FlowRecordScanner();
  const writer = flowRecordWriter();
  const reader = flowRecordReader();
  const r = new ScannedRecord();
  r.at.fill(-7);
  for (let n = 0; n < 100; n++) {
    const value = writer.encode(FLOW_RECORD_TYPE.random() as unknown as FlowRecord);
    scanner.scan(value, r);
    assert.equal(r.spliceable, false);
    assertSame(r, reader.decode(value));
  }
  assert.ok(r.at.every((p) => p === -7));
});

test('a value among other bytes (a record left in its batch) scans as the value alone', () => {
  const scanner = new FlowRecordScanner();
  const writer = flowRecordWriter();
  const reader = flowRecordReader();
  const r = new ScannedRecord(true);
  for (let n = 0; n < 100; n++) {
    const value = writer.encode(FLOW_RECORD_TYPE.random() as unknown as FlowRecord);
    const batch = Buffer.concat([Buffer.from([1, 2, 3, 4, 5, 6, 7]), value, Buffer.from([0, 2, 9])]);
    scanner.scanRange(batch, 7, 7 + value.length, r);
    assert.equal(r.end, 7 + value.length);
    assert.equal(r.at[FLOW_RECORD_FIELDS.length], r.end);
    assertSame(r, reader.decode(value));
  }
  const value = writer.encode(FLOW_RECORD_TYPE.random() as unknown as FlowRecord);
  const cut = Buffer.concat([value, Buffer.from([0])]);
  assert.throws(() => scanner.scanRange(cut, 0, value.length - 1, r), (err: unknown) => isFlowaggError(err, SCHEMA_BAD_BODY), 'a value cut short of its body, though its buffer goes on');
});

test('ints and longs of every size: positive up to 2^53 − 2, negative down to −2^52 (where avsc\'s own encoding stays exact)', () => {
  const scanner = new FlowRecordScanner();
  const r = new ScannedRecord();
  const values = [0, 1, -1, 63, 64, -65, 2 ** 14, 2 ** 21 - 1, 2 ** 27, 2 ** 28 - 1, 2 ** 28, -(2 ** 28), 2 ** 31, 1_764_400_000_123, 2 ** 40 + 12345, 9007199254740990, -(2 ** 52), -(2 ** 40) - 7];
  for (const v of values) {
    const record = { ...(FLOW_RECORD_TYPE.random() as unknown as FlowRecord), exportTime: v, octetTotalCount: Math.abs(v), sourceTransportPort: v % 2 ** 31 };
    scanner.scan(flowRecordWriter().encode(record), r);
    assert.deepEqual([r.num[FIELD.exportTime!], r.num[FIELD.octetTotalCount!], r.num[FIELD.sourceTransportPort!]], [v, Math.abs(v), (v % 2 ** 31) + 0]);
  }
});

test('an older writer schema (fields missing, one extra, another order) is read by name', () => {
  const older = structuredClone(FLOW_RECORD_SCHEMA) as SchemaJson;
  older.fields = older.fields.filter((f) => !['throughput', 'sourcePodLabels', 'clusterId'].includes(f.name));
  older.fields.unshift({ name: 'retiredField', type: ['null', 'string'], default: null });
  [older.fields[3], older.fields[4]] = [older.fields[4]!, older.fields[3]!];
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-scan-'));
  writeFileSync(join(dir, 'flow-record-v1.avsc'), JSON.stringify(older));
  const history = pathToFileURL(`${dir}/`);
  const scanner = new FlowRecordScanner(undefined, history);
  const reader = flowRecordReader(undefined, history);
  const type = avro.Type.forSchema(older as avro.Schema);
  const writer = new AvroWriter<FlowRecord>(type, older);
  const r = new ScannedRecord(true);
  for (let n = 0; n < 50; n++) {
    const value = writer.encode({ ...(type.random() as unknown as FlowRecord), sourcePodName: `pod-${n}` });
    scanner.scan(value, r);
    assert.equal(r.spliceable, false);
    const decoded = reader.decode(value);
    assertSame(r, decoded);
    assert.equal(r.text(FIELD.sourcePodName!), `pod-${n}`);
    assert.ok(Number.isNaN(r.num[FIELD.throughput!]), 'a field the writer lacks is null');
  }
});

test('malformed values are refused with the schema error codes, not misread', () => {
  const scanner = new FlowRecordScanner();
  const r = new ScannedRecord();
  const value = flowRecordWriter().encode(FLOW_RECORD_TYPE.random() as unknown as FlowRecord);
  assert.throws(() => scanner.scan(value.subarray(0, value.length - 1), r), (e: unknown) => isFlowaggError(e, SCHEMA_BAD_BODY));
  assert.throws(() => scanner.scan(Buffer.concat([value, Buffer.from([0])]), r), (e: unknown) => isFlowaggError(e, SCHEMA_BAD_BODY));
  const unknown = Buffer.from(value);
  unknown[5] = unknown[5]! ^ 0xff;
  assert.throws(() => scanner.scan(unknown, r), (e: unknown) => isFlowaggError(e, SCHEMA_UNKNOWN_WRITER));
  for (let n = 0; n < 2000; n++) {
    const garbled = Buffer.from(value);
    garbled[10 + Math.floor(Math.random() * (garbled.length - 10))] = Math.floor(Math.random() * 256);
    try {
      scanner.scan(garbled, r);
    } catch (e) {
      assert.ok(isFlowaggError(e, SCHEMA_BAD_BODY), String(e));
    }
  }
});
