import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { configKeys } from './keys.js';
import { changedPaths, planReload } from './reload.js';
import { reloadable } from './meta.js';

const schema = z.strictObject({
  mode: reloadable(z.enum(['Aggregate', 'Proxy']).default('Aggregate'), 'refused'),
  activeFlowRecordTimeout: z.number().default(60_000),
  recordContents: z.strictObject({ podLabels: reloadable(z.boolean().default(false), 'live') }).prefault({}),
  flowCollector: reloadable(z.strictObject({ enable: z.boolean().default(false), address: z.string().default('') }).prefault({}), 'live'),
});
const keys = configKeys(schema);
const base = schema.parse({});

test('changed paths go down to the values that differ; lists are compared whole', () => {
  assert.deepEqual(changedPaths({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { b: 1, c: [1, 3] }, e: 2 }), [['a', 'c'], ['d'], ['e']]);
  assert.deepEqual(changedPaths({ a: 1 }, { a: 1 }), []);
});

test('live changes apply, a change that needs a restart keeps the running value, a refused one too', () => {
  const next = schema.parse({ mode: 'Proxy', activeFlowRecordTimeout: 5000, recordContents: { podLabels: true }, flowCollector: { enable: true, address: 'c:4739' } });
  const plan = planReload(keys, base, next);
  assert.deepEqual(plan.changes, {
    live: ['recordContents.podLabels', 'flowCollector.enable', 'flowCollector.address'],
    restart: ['activeFlowRecordTimeout'],
    refused: ['mode'],
  });
  assert.deepEqual(plan.effective, { ...base, recordContents: { podLabels: true }, flowCollector: { enable: true, address: 'c:4739' } });
  assert.equal(base.recordContents.podLabels, false, 'the previous configuration is not modified');
});

test('a key removed by a live change goes back to what the new configuration says', () => {
  const withList = z.strictObject({ extra: reloadable(z.array(z.string()).optional(), 'live') });
  const plan = planReload(configKeys(withList), withList.parse({ extra: ['a'] }), withList.parse({}));
  assert.deepEqual(plan.effective, {});
  assert.deepEqual(plan.changes.live, ['extra']);
});
