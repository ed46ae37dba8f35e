import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TemplatePool } from '../lib/ipfix/template-pool.js';
import type { Endpoint } from '../lib/listeners/address.js';
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

test('a session keeps the sampling of at most 256 domains, whatever engines a v5 sender invents', () => {
  const s = new ExporterSession('udp', { address: '192.0.2.5', port: 2055 }, { templateTtlMs: 60_000, now: () => 0 }, 'netflow_v5');
  for (let engine = 0; engine < 1000; engine++) s.samplingOf(engine).announce(-1, 10);
  assert.ok(s.sampling.size <= 256, `${s.sampling.size} domains kept`);
  assert.equal(s.samplingOf(999).intervalOf(-1), 10);
});

test('a NetFlow exporter is one session per address and version, whatever its source port; its records say the latest port', () => {
  const table = new UdpSessionTable({
    templateTtlMs: 1000, maxSessions: 10, now: () => 0,
    create: (exporter, protocol) => new ExporterSession('udp', exporter, { templateTtlMs: 1000, now: () => 0 }, protocol),
  });
  const v9 = table.get({ address: '10.0.0.9', port: 5000 }, () => assert.fail(), 'netflow_v9');
  assert.equal(table.get({ address: '10.0.0.9', port: 5001 }, () => assert.fail(), 'netflow_v9'), v9);
  assert.deepEqual([v9.exporter.port, v9.context.origin.exporterPort, v9.context.origin.transport], [5001, 5001, 'netflow_v9']);
  assert.notEqual(table.get({ address: '10.0.0.9', port: 5001 }, () => assert.fail(), 'netflow_v5'), v9, 'v5 is a session of its own');
  assert.notEqual(table.get({ address: '10.0.0.9', port: 5001 }, () => assert.fail()), v9, 'so is IPFIX from the same address and port');
  assert.equal(table.size, 3);
});
