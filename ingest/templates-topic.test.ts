import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sameLayout } from '../lib/ipfix/template-store.js';
import { makeTemplate, templateField } from '../lib/ipfix/testing/templates.js';
import { isFlowaggError } from '../lib/errors.js';
import { decodeTemplateRecord, encodeTemplateValue, templateKey } from './templates-topic.js';
import { agentTemplate } from './testing/fakes.js';

test('a template travels through the topic record unchanged, keyed by exporter, port, domain and id', () => {
  const template = agentTemplate(300, 7);
  const key = templateKey({ address: '2001:db8::1', port: 4000 }, 7, 300);
  assert.equal(key.toString(), '2001:db8::1|4000|7|300');
  const shared = decodeTemplateRecord({ key, value: encodeTemplateValue('replica-a', template), timestamp: 42 })!;
  assert.deepEqual(shared.exporter, { address: '2001:db8::1', port: 4000 });
  assert.equal(shared.replica, 'replica-a');
  assert.equal(shared.timestamp, 42);
  assert.ok(sameLayout(shared.template, template));
});

test('an options template keeps its scope', () => {
  const options = makeTemplate(400, [templateField('exportingProcessId', undefined, true), templateField('systemInitTimeMilliseconds')], 1, 1);
  const shared = decodeTemplateRecord({ key: templateKey({ address: '10.0.0.1', port: 1 }, 1, 400), value: encodeTemplateValue('r', options), timestamp: 0 })!;
  assert.equal(shared.template.scopeFieldCount, 1);
  assert.ok(sameLayout(shared.template, options));
});

test('tombstones are nothing; unreadable records are errors that name the key', () => {
  assert.equal(decodeTemplateRecord({ key: Buffer.from('a|1|1|256'), value: null, timestamp: 0 }), undefined);
  for (const [key, value] of [
    ['a|1|1', '{}'],
    ['a|1|1|256', 'not json'],
    ['a|1|1|256', JSON.stringify({ v: 2, replica: 'r', options: false, record: '' })],
    ['a|1|1|256', JSON.stringify({ v: 1, replica: 'r', options: false, record: Buffer.from([1, 0, 0, 5]).toString('base64') })],
  ] as const) {
    assert.throws(
      () => decodeTemplateRecord({ key: Buffer.from(key), value: Buffer.from(value), timestamp: 0 }),
      (err: unknown) => isFlowaggError(err, 'FLOWAGG_ERR_INGEST_TEMPLATE_RECORD') && err.message.includes(key),
    );
  }
});
