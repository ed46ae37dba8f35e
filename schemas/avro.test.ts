import { test } from 'node:test';
import assert from 'node:assert/strict';
import avro from 'avsc';
import { isFlowaggError } from '../lib/errors.js';
import { AvroReader, AvroWriter, framingHeader, parsingCanonicalForm, rabinFingerprint, schemaFingerprint } from './avro.js';
import { SCHEMA_BAD_BODY, SCHEMA_BAD_FRAMING, SCHEMA_INCOMPATIBLE, SCHEMA_UNKNOWN_WRITER } from './errors.js';

// From apache/avro share/test/data/schema-tests.txt (Apache License 2.0): input, canonical form, fingerprint
// (CRC-64-AVRO as a signed long). The Java implementation cross-checks these with a direct Rabin computation.
const VECTORS: [string, string, string | undefined][] = [
  ['"null"', '"null"', '7195948357588979594'],
  ['{"type":"null"}', '"null"', undefined],
  ['"boolean"', '"boolean"', '-6970731678124411036'],
  ['"int"', '"int"', '8247732601305521295'],
  ['{"type":"int"}', '"int"', undefined],
  ['"long"', '"long"', '-3434872931120570953'],
  ['"float"', '"float"', '5583340709985441680'],
  ['"double"', '"double"', '-8181574048448539266'],
  ['"bytes"', '"bytes"', '5746618253357095269'],
  ['"string"', '"string"', '-8142146995180207161'],
  ['[  ]', '[]', '-1241056759729112623'],
  ['[ "int"  ]', '["int"]', '-5232228896498058493'],
  ['[ "int" , {"type":"boolean"} ]', '["int","boolean"]', '5392556393470105090'],
  ['{"fields":[], "type":"record", "name":"foo"}', '{"name":"foo","type":"record","fields":[]}', '-4824392279771201922'],
  ['{"fields":[], "type":"record", "name":"foo", "namespace":"x.y"}', '{"name":"x.y.foo","type":"record","fields":[]}', '5916914534497305771'],
  ['{"fields":[], "type":"record", "name":"a.b.foo", "namespace":"x.y"}', '{"name":"a.b.foo","type":"record","fields":[]}', '-4616218487480524110'],
  ['{"fields":[], "type":"record", "name":"foo", "doc":"Useful info"}', '{"name":"foo","type":"record","fields":[]}', '-4824392279771201922'],
  ['{"fields":[], "type":"record", "name":"foo", "aliases":["foo","bar"]}', '{"name":"foo","type":"record","fields":[]}', '-4824392279771201922'],
  ['{"fields":[{"type":{"type":"boolean"}, "name":"f1"}], "type":"record", "name":"foo"}', '{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"}]}', '7843277075252814651'],
  [
    '{ "fields":[{"type":"boolean", "aliases":[], "name":"f1", "default":"true"}, {"order":"descending","name":"f2","doc":"Hello","type":"int"}], "type":"record", "name":"foo" }',
    '{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"},{"name":"f2","type":"int"}]}',
    '-4860222112080293046',
  ],
  ['{"type":"enum", "name":"foo", "symbols":["A1"]}', '{"name":"foo","type":"enum","symbols":["A1"]}', '-6342190197741309591'],
  ['{"namespace":"x.y.z", "type":"enum", "name":"foo", "doc":"foo bar", "symbols":["A1", "A2"]}', '{"name":"x.y.z.foo","type":"enum","symbols":["A1","A2"]}', '-4448647247586288245'],
  ['{"name":"foo","type":"fixed","size":15}', '{"name":"foo","type":"fixed","size":15}', '1756455273707447556'],
  ['{"namespace":"x.y.z", "type":"fixed", "name":"foo", "doc":"foo bar", "size":32}', '{"name":"x.y.z.foo","type":"fixed","size":32}', '-3064184465700546786'],
  ['{ "items":{"type":"null"}, "type":"array"}', '{"type":"array","items":"null"}', '-589620603366471059'],
  ['{ "values":"string", "type":"map"}', '{"type":"map","values":"string"}', '-8732877298790414990'],
  [
    '{"name":"PigValue","type":"record", "fields":[{"name":"value", "type":["null", "int", "long", "PigValue"]}]}',
    '{"name":"PigValue","type":"record","fields":[{"name":"value","type":["null","int","long","PigValue"]}]}',
    '-1759257747318642341',
  ],
];

test('Parsing Canonical Form and CRC-64-AVRO match the Avro specification vectors', () => {
  for (const [input, canonical, fingerprint] of VECTORS) {
    const pcf = parsingCanonicalForm(JSON.parse(input));
    assert.equal(pcf, canonical, input);
    if (fingerprint !== undefined) assert.equal(BigInt.asIntN(64, rabinFingerprint(Buffer.from(pcf))), BigInt(fingerprint), input);
  }
});

test('named references inside a namespace are qualified', () => {
  const schema = { type: 'record', name: 'R', namespace: 'a.b', fields: [{ name: 'x', type: { type: 'fixed', name: 'F', size: 4 } }, { name: 'y', type: ['null', 'F'] }] };
  assert.equal(
    parsingCanonicalForm(schema),
    '{"name":"a.b.R","type":"record","fields":[{"name":"x","type":{"name":"a.b.F","type":"fixed","size":4}},{"name":"y","type":["null","a.b.F"]}]}',
  );
});

const V1 = { type: 'record', name: 'T', namespace: 't', fields: [{ name: 'a', type: 'int' }, { name: 'gone', type: 'string', default: '' }] };
const V2 = { type: 'record', name: 'T', namespace: 't', fields: [{ name: 'a', type: 'long' }, { name: 'added', type: ['null', 'string'], default: null }] };

test('a reader decodes single-object values of an older writer schema through a resolver', () => {
  const w1 = new AvroWriter<{ a: number; gone: string }>(avro.Type.forSchema(V1 as avro.Schema), V1);
  const bytes = w1.encode({ a: 7, gone: 'x' });
  assert.deepEqual([...bytes.subarray(0, 2)], [0xc3, 0x01]);
  assert.deepEqual(bytes.subarray(2, 10), schemaFingerprint(V1));

  const reader = new AvroReader<{ a: number; added: string | null }>(avro.Type.forSchema(V2 as avro.Schema), V2);
  assert.throws(() => reader.decode(bytes), (e) => isFlowaggError(e, SCHEMA_UNKNOWN_WRITER));
  reader.register(V1);
  assert.deepEqual({ ...reader.decode(bytes) }, { a: 7, added: null });
  // The reader's own values need no resolver.
  const w2 = new AvroWriter(reader.type, V2);
  assert.deepEqual({ ...reader.decode(w2.encode({ a: 2 ** 40, added: 'y' })) }, { a: 2 ** 40, added: 'y' });
});

test('Confluent framing: magic 0 and a big-endian schema id select the writer schema', () => {
  const header = framingHeader({ kind: 'confluent', schemaId: 0x01020304 }, V1);
  assert.deepEqual([...header], [0, 1, 2, 3, 4]);
  const w1 = new AvroWriter(avro.Type.forSchema(V1 as avro.Schema), V1, { kind: 'confluent', schemaId: 42 });
  const reader = new AvroReader<{ a: number }>(avro.Type.forSchema(V2 as avro.Schema), V2, 43);
  assert.throws(() => reader.decode(w1.encode({ a: 1, gone: '' })), (e) => isFlowaggError(e, SCHEMA_UNKNOWN_WRITER));
  reader.register(V1, 42);
  assert.equal(reader.decode(w1.encode({ a: -5, gone: '' })).a, -5);
});

test('bad framing, truncated and trailing bytes, and unresolvable writers are named errors', () => {
  const reader = new AvroReader<{ a: number }>(avro.Type.forSchema(V1 as avro.Schema), V1);
  const good = new AvroWriter(reader.type, V1).encode({ a: 300, gone: 'abc' });
  assert.throws(() => reader.decode(Buffer.from([0x7b, 0x22])), (e) => isFlowaggError(e, SCHEMA_BAD_FRAMING));
  assert.throws(() => reader.decode(good.subarray(0, good.length - 1)), (e) => isFlowaggError(e, SCHEMA_BAD_BODY));
  assert.throws(() => reader.decode(Buffer.concat([good, Buffer.from([0])])), (e) => isFlowaggError(e, SCHEMA_BAD_BODY));
  const needsDefault = { type: 'record', name: 'T', namespace: 't', fields: [{ name: 'mustHave', type: 'int' }] };
  const strict = new AvroReader(avro.Type.forSchema(needsDefault as avro.Schema), needsDefault);
  assert.throws(() => strict.register(V1), (e) => isFlowaggError(e, SCHEMA_INCOMPATIBLE));
});
