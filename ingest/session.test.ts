import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TemplatePool } from '../lib/ipfix/template-pool.js';
import { type Endpoint } from '../lib/listeners/address.js';
import { ExporterSession, UdpSessionTable } from './session.js';
import { agentTemplate } from './testing/fakes.js';

const udp = (now: () => number, pool?: TemplatePool) => (exporter: Endpoint) => new ExporterSession('udp', exporter, { templateTtlMs: 1000, now, ...(pool && { pool }) });

test('UDP sessions are per exporter address and port, and expire after the template lifetime without traffic', () => {
  let now = 0;
  const table = new UdpSessionTable({ templateTtlMs: 1000, maxSessions: 10, now: () => now, create: udp(() => now) });
  const a = table.get({ address: '10.0.0.1', port: 5000 }, () => assert.fail());
  assert.equal(table.get({ address: '10.0.0.1', port: 5000 }, () => assert.fail()), a);
  const b = table.get({ address: '10.0.0.1', port: 5001 }, () => assert.fail());
  assert.notEqual(a, b);
  a.templates.set(agentTemplate());
  now = 900;
  table.touch(b);
  now = 1500;
  assert.deepEqual(table.sweep(), [a]);
  assert.equal(table.size, 1);
  now = 1800;
  assert.deepEqual(table.sweep(), [], 'b was active 900 ms ago');
  now = 2000;
  assert.deepEqual(table.sweep(), [b]);
});

test('a full table forgets the least recently active exporter', () => {
  const now = 0;
  const pool = new TemplatePool({ perGroup: 10, total: 10, totalFields: 1e6 });
  const table = new UdpSessionTable({ templateTtlMs: 1000, maxSessions: 2, now: () => now, create: udp(() => now, pool) });
  const evicted: ExporterSession[] = [];
  const a = table.get({ address: 'a', port: 1 }, (s) => evicted.push(s));
  const b = table.get({ address: 'b', port: 1 }, (s) => evicted.push(s));
  b.templates.set(agentTemplate());
  table.touch(a);
  table.get({ address: 'c', port: 1 }, (s) => evicted.push(s));
  assert.deepEqual(evicted, [b]);
  assert.equal(pool.size, 0, 'the evicted session returned its templates to the shared budget');
});

test('a stream session is named by transport, address, port and a number of its own', () => {
  const session = new ExporterSession('tcp', { address: '10.0.0.1', port: 1 }, { templateTtlMs: 1000, now: () => 0 });
  assert.match(session.id, /^tcp 10\.0\.0\.1:1 #\d+$/);
  assert.equal(session.context.origin.exporterAddress, '10.0.0.1');
});
