import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import avro from 'avsc';
import { isFlowaggError } from '../lib/errors.js';
import { AvroReader, AvroWriter } from './avro.js';
import { SCHEMA_BAD_MAPPING } from './errors.js';
import { describeFlowRecordFields, FLOW_RECORD_FIELDS, FLOW_RECORD_SCHEMA, flowRecordReader, flowRecordWriter } from './flow-record.js';
import { ANTREA_PEN, element } from '../lib/ipfix/registry.js';

type SchemaJson = { fields: { name: string; type: unknown; default?: unknown; ipfix?: unknown }[] };
const schemaCopy = () => structuredClone(FLOW_RECORD_SCHEMA) as SchemaJson;
const describe = (s: SchemaJson) => describeFlowRecordFields(s, avro.Type.forSchema(s as avro.Schema));

test('every Antrea element (PEN 56506, 100–172) and every element of the agent template has a typed field', () => {
  const typed = new Set(FLOW_RECORD_FIELDS.flatMap((f) => (f.kind === 'element' ? [`${f.ie.pen}/${f.ie.id}`] : [])));
  for (let id = 100; id <= 172; id++) assert.ok(typed.has(`${ANTREA_PEN}/${id}`), `antrea ${id}`);
  for (const name of ['flowStartSeconds', 'flowEndSeconds']) assert.ok(!typed.has(`0/${element(name).id}`)); // normalised instead
  for (const name of ['flowEndReason', 'sourceTransportPort', 'destinationTransportPort', 'protocolIdentifier', 'packetTotalCount', 'octetTotalCount', 'packetDeltaCount',
    'octetDeltaCount', 'sourceIPv4Address', 'destinationIPv4Address', 'sourceIPv6Address', 'destinationIPv6Address', 'reversePacketTotalCount', 'reverseOctetTotalCount',
    'reversePacketDeltaCount', 'reverseOctetDeltaCount', 'flowDirection', 'originalExporterIPv4Address', 'originalExporterIPv6Address', 'originalObservationDomainId']) {
    const ie = element(name);
    assert.ok(typed.has(`${ie.pen}/${ie.id}`), name);
  }
});

test('every field can be absent: a reader fills every field of an empty writer record from defaults', () => {
  const type = avro.Type.forSchema(FLOW_RECORD_SCHEMA as avro.Schema);
  for (const f of (FLOW_RECORD_SCHEMA as SchemaJson).fields) assert.ok('default' in f, `${f.name} has a default`);
  const empty = flowRecordReader().decode(flowRecordWriter().encode(type.fromBuffer(type.toBuffer({}))));
  assert.equal(empty.sourcePodName, null);
  assert.equal(empty.transport, 'unknown');
  assert.deepEqual(empty.extras, []);
});

test('evolution: a reader reads an older writer (fields missing) and a newer one (fields added) through the fingerprint registry', () => {
  const older = schemaCopy();
  older.fields = older.fields.filter((f) => f.name !== 'clusterId' && f.name !== 'egressNodeName');
  const newer = schemaCopy();
  newer.fields.splice(newer.fields.length - 1, 0, { name: 'aggregationState', type: ['null', 'string'], default: null });
  const reader = flowRecordReader();
  reader.register(older);
  reader.register(newer);
  const olderValue = new AvroWriter(avro.Type.forSchema(older as avro.Schema), older).encode({ sourcePodName: 'a', egressName: 'e' } as never);
  const fromOlder = reader.decode(olderValue);
  assert.equal(fromOlder.sourcePodName, 'a');
  assert.equal(fromOlder.clusterId, null);
  const newerValue = new AvroWriter(avro.Type.forSchema(newer as avro.Schema), newer).encode({ sourcePodName: 'b', aggregationState: 'x' } as never);
  assert.equal(reader.decode(newerValue).sourcePodName, 'b');
  assert.equal('aggregationState' in reader.decode(newerValue), false);
});

test('a field added for the processor without an IPFIX element is written with its default by ingest', () => {
  const s = schemaCopy();
  s.fields.splice(s.fields.length - 1, 0, { name: 'correlated', type: 'boolean', default: false });
  const field = describe(s).find((f) => f.name === 'correlated');
  assert.deepEqual(field, { kind: 'default', name: 'correlated', defaultBytes: Buffer.from([0]) });
});

test('a schema whose IPFIX mapping disagrees with the registry is refused with the field named', () => {
  const cases: [string, (s: SchemaJson) => void][] = [
    ['wrong type', (s) => { s.fields.find((f) => f.name === 'sourcePodName')!.type = ['null', 'int']; }],
    ['wrong name', (s) => { s.fields.find((f) => f.name === 'sourcePodName')!.ipfix = { pen: ANTREA_PEN, id: 102 }; }],
    ['unknown element', (s) => { s.fields.find((f) => f.name === 'sourcePodName')!.ipfix = { pen: 1, id: 1 }; }],
    ['extras not last', (s) => { s.fields.push({ name: 'late', type: ['null', 'int'], default: null }); }],
  ];
  for (const [why, mutate] of cases) {
    const s = schemaCopy();
    mutate(s);
    assert.throws(() => describe(s), (e) => isFlowaggError(e, SCHEMA_BAD_MAPPING) && /sourcePodName|extras/.test(e.message), why);
  }
});

test('earlier schema versions in the history directory are registered with every reader', () => {
  const older = schemaCopy();
  older.fields = older.fields.filter((f) => f.name !== 'clusterId');
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-schemas-'));
  writeFileSync(join(dir, 'flow-record-v1.avsc'), JSON.stringify(older));
  writeFileSync(join(dir, 'notes.txt'), 'not a schema');
  const value = new AvroWriter(avro.Type.forSchema(older as avro.Schema), older).encode({ sourcePodName: 'old' } as never);
  assert.throws(() => flowRecordReader(undefined, pathToFileURL(join(tmpdir(), 'flowagg-no-such-dir/'))).decode(value), (e) => isFlowaggError(e));
  const record = flowRecordReader(undefined, pathToFileURL(`${dir}/`)).decode(value);
  assert.equal(record.sourcePodName, 'old');
  assert.equal(record.clusterId, null);
});

test('v1 (before transport "grpc") and the current schema read each other: an old reader sees "grpc" as "unknown"', () => {
  const v1 = JSON.parse(readFileSync(new URL('./history/flow-record-v1.avsc', import.meta.url), 'utf8')) as { fields: { name: string }[] };
  const v1Type = avro.Type.forSchema(v1 as avro.Schema);
  const old = new AvroWriter(v1Type, v1).encode({ transport: 'tls', sourcePodName: 'old' } as never);
  const record = flowRecordReader().decode(old);
  assert.equal(record.transport, 'tls');
  assert.equal(record.sourcePodName, 'old');
  const current = flowRecordWriter().encode({ transport: 'grpc', exporterAddress: '10.0.0.5' } as never);
  const oldReader = new AvroReader(v1Type, v1);
  oldReader.register(FLOW_RECORD_SCHEMA);
  const seenByOld = oldReader.decode(current) as { transport: string; exporterAddress: string };
  assert.equal(seenByOld.transport, 'unknown');
  assert.equal(seenByOld.exporterAddress, '10.0.0.5');
});
