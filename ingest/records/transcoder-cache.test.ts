import assert from 'node:assert/strict';
import { test } from 'node:test';
import { antreaAgentTemplate, softflowdTemplate } from '../../lib/ipfix/testing/templates.js';
import { flowRecordReader } from '../../schemas/flow-record.js';
import { RecordBuffer } from '../../schemas/record-buffer.js';
import { contextFor, encodeRecord } from './testing/records.js';
import { layoutKey, TranscoderCache } from './transcoder-cache.js';

const ORIGIN = { exporterAddress: '10.1.2.3', exporterPort: 4000, transport: 'udp' } as const;
const FACTS = { exportTime: 1_700_000_000, sequenceNumber: 7, receiveTime: 1_700_000_000_500, systemInitTime: undefined };

test('templates of one layout share one transcoder, whatever their id, domain or session', () => {
  const cache = new TranscoderCache({ maxLayouts: 8, compileAfterRecords: 2 });
  const a = antreaAgentTemplate(256, 1);
  const b = antreaAgentTemplate(300, 9);
  assert.equal(layoutKey(a), layoutKey(b));
  assert.equal(cache.get(a), cache.get(b));
  assert.notEqual(cache.get(softflowdTemplate()), cache.get(a));
  assert.equal(cache.size, 2);
});

test('a shared transcoder writes each session\'s origin and each template\'s id, interpreted and then compiled', () => {
  const cache = new TranscoderCache({ maxLayouts: 8, compileAfterRecords: 2 });
  const reader = flowRecordReader();
  const out = new RecordBuffer();
  const template = softflowdTemplate(256, 3);
  const values = template.fields.map((f) => (f.ie.type === 'ipv4Address' ? '10.0.0.1' : f.ie.type === 'ipv6Address' ? '::1' : 1));
  const bytes = encodeRecord(template, values as never);
  for (let i = 0; i < 5; i++) {
    const origin = { ...ORIGIN, exporterPort: 4000 + i };
    const t = { ...template, id: 256 + i };
    assert.equal(cache.get(t).transcode(bytes, 0, bytes.length, contextFor(origin, t, FACTS), out), bytes.length);
    const r = reader.decode(out.value());
    assert.deepEqual([r.exporterPort, r.templateId, r.observationDomainId, r.exporterAddress], [4000 + i, 256 + i, 3, '10.1.2.3']);
  }
});

test('the cache is bounded: the least recently used layout is evicted, and counted once it was compiled', () => {
  let evicted = 0;
  const cache = new TranscoderCache({ maxLayouts: 1, compileAfterRecords: 0, onEvict: () => evicted++ });
  const agent = antreaAgentTemplate();
  const out = new RecordBuffer();
  const values = agent.fields.map((f) => (f.ie.type === 'string' ? 'x' : f.ie.type === 'ipv4Address' ? '10.0.0.1' : f.ie.type === 'ipv6Address' ? '::1' : 1));
  const bytes = encodeRecord(agent, values as never);
  cache.get(agent).transcode(bytes, 0, bytes.length, contextFor(ORIGIN, agent, FACTS), out);
  cache.get(softflowdTemplate());
  assert.equal(cache.size, 1);
  assert.equal(evicted, 1);
  // The evicted layout still works (interpreted until it has carried records again).
  assert.equal(cache.get(agent).transcode(bytes, 0, bytes.length, contextFor(ORIGIN, agent, FACTS), out), bytes.length);
});
