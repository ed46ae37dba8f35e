import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldsToJson } from '../../lib/ipfix/json.js';
import { recordDecoder } from '../../lib/ipfix/record-decoder.js';
import { antreaAgentTemplate, antreaAgentValues, makeTemplate, templateField } from '../../lib/ipfix/testing/templates.js';
import type { Template } from '../../lib/ipfix/types.js';
import { contextFor, encodeRecord, referenceEncode } from './testing/records.js';
import { flowRecordReader, flowRecordWriter } from '../../schemas/flow-record.js';
import { flowRecordToJson, uuidText } from '../../schemas/flow-record-json.js';

const origin = { exporterAddress: '192.0.2.7', exporterPort: 4739, transport: 'tcp' } as const;
const msg = { exportTime: 1_700_000_100, sequenceNumber: 42, receiveTime: 1_700_000_100_250, systemInitTime: undefined };

/** The FlowRecord ingest writes for one IPFIX record, read back, as JSON; and decode's JSON of the same record. */
function bothWays(template: Template, values: Parameters<typeof encodeRecord>[1]) {
  const bytes = encodeRecord(template, values);
  const { value } = referenceEncode(template, bytes, contextFor(origin, template, msg), flowRecordWriter());
  const record = flowRecordReader().decode(value);
  const decoded = recordDecoder(template).decode(bytes, 0, bytes.length, { store: undefined, observationDomainId: 1, depth: 0, maxDepth: 8, next: 0 })!;
  return { json: flowRecordToJson(record), decoded: fieldsToJson(decoded) };
}

test('an Antrea agent record prints with the keys and values flowagg decode prints, plus provenance', () => {
  const { json, decoded } = bothWays(antreaAgentTemplate(256, 1), antreaAgentValues(3));
  const { '@exporter': exporter, '@transport': transport, '@exportTime': exportTime, '@sequenceNumber': seq, '@receiveTime': receive, '@templateId': tid, '@observationDomainId': odid, ...elements } = json;
  assert.deepEqual([exporter, transport, exportTime, seq, receive, tid, odid], ['192.0.2.7:4739', 'tcp', 1_700_000_100, 42, 1_700_000_100_250, 256, 1]);
  assert.deepEqual(elements, decoded);
  assert.equal(elements.flowStartSeconds, 1_700_000_003, 'seconds stay seconds under their own name');
  assert.equal(elements.destinationClusterIPv4, '10.96.0.15');
});

test('millisecond times, MACs, UUIDs, unknown and repeated elements', () => {
  const template = makeTemplate(300, [
    templateField('flowStartMilliseconds'), templateField('sourceMacAddress'), templateField('sourcePodUUID'),
    templateField('sourceIPv6Address'), templateField('sourceIPv6Address'), { ie: { pen: 9999, id: 7, name: 'e9999.7', type: 'octetArray', length: 65535 }, length: 3, scope: false },
  ]);
  const uuid = Buffer.from('8d0f2c1a9b7e4d3c8a2b1c0d9e8f7a6b', 'hex');
  const { json } = bothWays(template, [1_700_000_000_123, '00:0c:29:70:86:09', uuid, '2001:db8::1', 'fd00::2', Buffer.from([1, 2, 3])]);
  assert.equal(json.flowStartMilliseconds, 1_700_000_000_123);
  assert.equal(json.sourceMacAddress, '00:0c:29:70:86:09');
  assert.equal(json.sourcePodUUID, '8d0f2c1a-9b7e-4d3c-8a2b-1c0d9e8f7a6b');
  assert.deepEqual(json.sourceIPv6Address, ['2001:db8::1', 'fd00::2'], 'the typed field, then the repeated element from extras');
  assert.equal(json['e9999.7'], '010203');
  assert.equal(uuidText(uuid), '8d0f2c1a-9b7e-4d3c-8a2b-1c0d9e8f7a6b');
});

test('absent fields and empty provenance are left out', () => {
  const { json } = bothWays(makeTemplate(301, [templateField('protocolIdentifier')]), [17]);
  assert.deepEqual(Object.keys(json).filter((k) => !k.startsWith('@')), ['protocolIdentifier']);
  const template = makeTemplate(302, [templateField('protocolIdentifier')]);
  const bytes = encodeRecord(template, [6]);
  const none = { exporterAddress: '', exporterPort: 0, transport: 'unknown' } as const;
  const bare = flowRecordToJson(flowRecordReader().decode(referenceEncode(template, bytes, contextFor(none, template, { ...msg, receiveTime: 0 }), flowRecordWriter()).value));
  assert.equal('@exporter' in bare, false);
  assert.equal('@transport' in bare, false);
  assert.equal('@receiveTime' in bare, false);
});
