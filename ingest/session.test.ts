import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExporterSession, UdpSessionTable } from './session.js';
import { agentTemplate } from './testing.js';

test('UDP sessions are per exporter address and port, and expire after the template lifetime without traffic', () => {
  let now = 0;
  const table = new UdpSessionTable({ templateTtlMs: 1000, maxSessions: 10, now: () => now });
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
  const table = new UdpSessionTable({ templateTtlMs: 1000, maxSessions: 2, now: () => now });
  const evicted: ExporterSession[] = [];
  const a = table.get({ address: 'a', port: 1 }, (s) => evicted.push(s));
  const b = table.get({ address: 'b', port: 1 }, (s) => evicted.push(s));
  table.touch(a);
  table.get({ address: 'c', port: 1 }, (s) => evicted.push(s));
  assert.deepEqual(evicted, [b]);
});

test('a transcoder is compiled once per template and again when the template is redefined', () => {
  const session = new ExporterSession('tcp', { address: '10.0.0.1', port: 1 }, { templateTtlMs: 1000, now: () => 0 });
  const t1 = agentTemplate();
  assert.equal(session.transcoder(t1), session.transcoder(t1));
  const t2 = agentTemplate();
  assert.notEqual(session.transcoder(t2), session.transcoder(t1));
  assert.match(session.id, /^tcp 10\.0\.0\.1:1 #\d+$/);
});
