import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podLabelsJson } from './pod-labels.js';

const pod = (labels: Record<string, string>) => ({ namespace: 'ns', name: 'p', uid: 'u', nodeName: 'n', labels });

test('labels as JSON with sorted keys, "{}" without labels, "" without a Pod', () => {
  assert.equal(podLabelsJson(pod({ tier: 'db', app: 'shop', 'app.kubernetes.io/name': 'x' })), '{"app":"shop","app.kubernetes.io/name":"x","tier":"db"}');
  assert.equal(podLabelsJson(pod({})), '{}');
  assert.equal(podLabelsJson(undefined), '');
  assert.equal(podLabelsJson(pod({ q: 'say "hi"\n' })), '{"q":"say \\"hi\\"\\n"}', 'escaped as encoding/json escapes quotes and newlines');
  assert.deepEqual(JSON.parse(podLabelsJson(pod({ b: '2', a: '1' }))), { a: '1', b: '2' });
});
