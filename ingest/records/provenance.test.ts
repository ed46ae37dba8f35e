import assert from 'node:assert/strict';
import { test } from 'node:test';
import { antreaAgentTemplate, antreaAgentValues } from '../../lib/ipfix/testing/templates.js';
import { readProvenance, transportIndex } from './provenance.js';
import { RecordBuffer } from '../../schemas/record-buffer.js';
import { contextFor, encodeRecord } from './testing/records.js';
import { compileTranscoder } from './transcode.js';

test('the provenance read from the record prefix is what the transcoder wrote', () => {
  const template = antreaAgentTemplate(300, 77);
  const bytes = encodeRecord(template, antreaAgentValues(3));
  const out = new RecordBuffer();
  const origin = { exporterAddress: 'fd00::1', exporterPort: 40000, transport: 'tls' } as const;
  const facts = { exportTime: 1_700_000_000, sequenceNumber: 4_000_000_000, receiveTime: 1_700_000_000_123, systemInitTime: undefined };
  compileTranscoder(template).transcode(bytes, 0, bytes.length, contextFor(origin, template, facts), out);
  assert.deepEqual(readProvenance(out.value()), {
    exporterAddress: 'fd00::1', exporterPort: 40000, transport: 3, observationDomainId: 77,
    exportTime: 1_700_000_000_000, sequenceNumber: 4_000_000_000, templateId: 300, receiveTime: 1_700_000_000_123,
  });
  assert.equal(readProvenance(out.value().subarray(0, 14)), undefined, 'cut off');
  assert.equal(readProvenance(Buffer.from('not avro')), undefined);
});

test('transport indexes follow the schema\'s enum', () => {
  assert.deepEqual([transportIndex('udp'), transportIndex('tls'), transportIndex('netflow_v9'), transportIndex('netflow_v5')], [1, 3, 6, 7]);
});
