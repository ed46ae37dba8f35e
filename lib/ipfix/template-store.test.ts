// The template store and the pool shared by stores: bounded, O(1) per operation, oldest or idlest evicted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lookupElement } from './registry.js';
import { type EvictionReason, TemplatePool } from './template-pool.js';
import { TemplateStore } from './template-store.js';
import type { Template } from './types.js';

function template(id: number, odid = 1, options = false, length = 4): Template {
  const ie = lookupElement(0, 8);
  return { id, observationDomainId: odid, fields: [{ ie, length, scope: options }], scopeFieldCount: options ? 1 : 0 };
}

test('a full store evicts its least recently refreshed template and reports it', () => {
  const evicted: [number, EvictionReason][] = [];
  const store = new TemplateStore({ transport: 'tcp', maxTemplates: 2, onEvict: (t, r) => evicted.push([t.id, r]) });
  store.set(template(256));
  store.set(template(257));
  store.set(template(256)); // refreshed: 257 is now the oldest
  store.set(template(258));
  assert.deepEqual(store.all().map((t) => t.id).sort(), [256, 258]);
  assert.deepEqual(evicted, [[257, 'session']]);
});

test('withdraw all removes only the domain and kind named, and costs nothing once the domain is empty', () => {
  const store = new TemplateStore({ transport: 'tcp' });
  for (let id = 256; id < 256 + 1000; id++) store.set(template(id, 1));
  store.set(template(5000, 1, true));
  store.set(template(256, 2));
  assert.equal(store.withdraw(1, 'all'), true);
  assert.deepEqual(store.all().map((t) => [t.observationDomainId, t.id]).sort(), [[1, 5000], [2, 256]]);
  assert.equal(store.withdraw(1, 'all'), false, 'nothing left of that kind');
  assert.equal(store.withdraw(1, 'all', 'optionsTemplate'), true);
  assert.equal(store.size, 1);
});

test('a redefinition moves the template to its new kind for withdrawals', () => {
  const store = new TemplateStore({ transport: 'tcp' });
  store.set(template(256, 1, false));
  store.set(template(256, 1, true));
  assert.equal(store.withdraw(1, 'all', 'template'), false);
  assert.equal(store.withdraw(1, 'all', 'optionsTemplate'), true);
  assert.equal(store.size, 0);
});

test('UDP expiry drops the expired templates and stops at the first live one', () => {
  let now = 0;
  const store = new TemplateStore({ transport: 'udp', templateTtlMs: 100, now: () => now });
  store.set(template(256));
  now = 50;
  store.set(template(257));
  now = 120;
  assert.equal(store.expire(), 1);
  assert.equal(store.get(1, 256), undefined);
  assert.ok(store.get(1, 257));
  now = 151;
  assert.equal(store.get(1, 257), undefined, 'get drops an expired template lazily');
  assert.equal(store.size, 0);
});

test('expired templates make room without being counted as evictions', () => {
  let now = 0;
  const evicted: number[] = [];
  const store = new TemplateStore({ transport: 'udp', templateTtlMs: 100, maxTemplates: 1, now: () => now, onEvict: (t) => evicted.push(t.id) });
  store.set(template(256));
  now = 200;
  store.set(template(257));
  assert.deepEqual(evicted, []);
  store.set(template(258));
  assert.deepEqual(evicted, [257]);
});

test('a pool bounds each group, evicting the group\'s least recently used template', () => {
  const pool = new TemplatePool({ perGroup: 2, total: 100, totalFields: 1e6 });
  const evicted: string[] = [];
  const store = (name: string, group: string) =>
    new TemplateStore({ transport: 'udp', pool: { pool, group }, onEvict: (t, r) => evicted.push(`${name}:${t.id}:${r}`) });
  const a1 = store('a1', '10.0.0.1');
  const a2 = store('a2', '10.0.0.1');
  a1.set(template(256));
  a2.set(template(256));
  assert.ok(a1.get(1, 256), 'a1 used: a2\'s template is the idlest');
  a2.set(template(257));
  assert.deepEqual(evicted, ['a2:256:exporter']);
  assert.equal(a2.get(1, 256), undefined);
  assert.equal(pool.size, 2);
});

test('a full pool evicts from the least recently active group, so a flood of new groups evicts itself', () => {
  // The good exporter uses its templates once per 10 new forged groups, within a pool of 16.
  const pool = new TemplatePool({ perGroup: 10, total: 16, totalFields: 1e6 });
  const evicted: string[] = [];
  const stores = new Map<string, TemplateStore>();
  const store = (group: string) => {
    let s = stores.get(group);
    if (s === undefined) stores.set(group, (s = new TemplateStore({ transport: 'udp', pool: { pool, group }, onEvict: (t) => evicted.push(`${group}:${t.id}`) })));
    return s;
  };
  store('good').set(template(256));
  store('good').set(template(257));
  for (let i = 0; i < 50; i++) {
    store(`forged-${i}`).set(template(256));
    if (i % 10 === 0) assert.ok(store('good').get(1, 256) && store('good').get(1, 257));
  }
  assert.equal(pool.size, 16);
  assert.equal(evicted.length, 50 + 2 - 16);
  assert.ok(store('good').get(1, 256) && store('good').get(1, 257), 'the active exporter kept its templates');
  assert.ok(evicted.every((e) => e.startsWith('forged-')), evicted.join(' '));
});

test('clear returns a store\'s templates to the pool', () => {
  const pool = new TemplatePool({ perGroup: 10, total: 10, totalFields: 1e6 });
  const store = new TemplateStore({ transport: 'tcp', pool: { pool, group: 'x' } });
  store.set(template(256));
  store.set(template(257));
  store.withdraw(1, 257);
  assert.equal(pool.size, 1);
  store.clear();
  assert.equal(pool.size, 0);
});

test('withdrawing 65,000 templates one "withdraw all" at a time stays linear', () => {
  // Finding 1: a scan of every template per withdrawal record was quadratic. Counted, not timed: the
  // second and later withdrawals must find nothing to visit.
  const store = new TemplateStore({ transport: 'tcp' });
  for (let id = 256; id < 65_256; id++) store.set(template(id));
  assert.equal(store.withdraw(1, 'all'), true);
  for (let i = 0; i < 16_370; i++) assert.equal(store.withdraw(1, 'all'), false);
  assert.equal(store.size, 0);
});

test('the pool bounds the fields of all templates, and a redefinition is charged its new size', () => {
  const pool = new TemplatePool({ perGroup: 100, total: 100, totalFields: 10 });
  const wide = (id: number, n: number): Template => ({ ...template(id), fields: Array.from({ length: n }, () => template(id).fields[0]!) });
  const evicted: number[] = [];
  const store = new TemplateStore({ transport: 'tcp', pool: { pool, group: 'x' }, onEvict: (t) => evicted.push(t.id) });
  store.set(wide(256, 4));
  store.set(wide(257, 4));
  assert.equal(pool.fields, 8);
  store.set(wide(257, 1));
  assert.equal(pool.fields, 5);
  store.set(wide(258, 6));
  assert.deepEqual(evicted, [256]);
  assert.equal(pool.fields, 7);
});
