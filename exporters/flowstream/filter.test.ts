import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileFilters, serviceName } from './filter.js';
import { matchesSelector, parseSelector } from './label-selector.js';

const flow = (src: number[], dst: number[], k8s?: Record<string, unknown>) => ({ ip: { source: Buffer.from(src), destination: Buffer.from(dst) }, ...(k8s && { k8s }) });

test('label selectors: every Kubernetes form, absent labels as the empty set, errors named', () => {
  const sel = (s: string) => {
    const p = parseSelector(s);
    assert.ok('selector' in p, JSON.stringify(p));
    return p.selector;
  };
  const labels = { app: 'web', tier: 'front', 'example.com/team': 'a' };
  assert.ok(matchesSelector(sel('app=web,tier==front'), labels));
  assert.ok(!matchesSelector(sel('app!=web'), labels));
  assert.ok(matchesSelector(sel('app in (db, web)'), labels));
  assert.ok(!matchesSelector(sel('app notin (db,web)'), labels));
  assert.ok(matchesSelector(sel('example.com/team, !missing'), labels));
  assert.ok(matchesSelector(sel('!app'), undefined), 'absent labels match a negative selector');
  assert.ok(matchesSelector(sel('app!=web'), undefined));
  assert.ok(!matchesSelector(sel('app'), undefined));
  assert.ok(matchesSelector(sel(''), undefined));
  for (const bad of ['app in ()', 'app=web,', 'bad key=1', 'app=-x', '/x=1']) assert.ok('error' in parseSelector(bad), bad);
});

test('filters: direction, AND across filters, OR within a field, CIDRs, Service names, refusals', () => {
  const compile = (filters: object[]) => {
    const c = compileFilters(filters);
    assert.ok('matches' in c, JSON.stringify(c));
    return c.matches;
  };
  const f = flow([10, 0, 0, 5], [10, 0, 1, 9], { source_pod_namespace: 'a', destination_pod_namespace: 'b', destination_service_port_name: 'ns/svc:http', flow_type: 2 });
  assert.ok(compile([{ namespaces: ['b'] }])(f), 'BOTH: either side');
  assert.ok(!compile([{ namespaces: ['b'], direction: 1 }])(f));
  assert.ok(compile([{ namespaces: ['b'], direction: 2 }])(f));
  assert.ok(compile([{ namespaces: ['x', 'a'], direction: 1 }, { ips: ['10.0.1.0/24'], direction: 2 }])(f));
  assert.ok(!compile([{ namespaces: ['a'] }, { flow_types: [3] }])(f), 'filters AND');
  assert.ok(compile([{ service_names: ['svc'] }])(f));
  assert.ok(!compile([{ ips: ['::ffff:10.0.0.5'] }])(f), 'an IPv4-mapped IPv6 address is not the IPv4 address');
  assert.ok(!compile([{ namespaces: ['a'] }])(flow([1, 1, 1, 1], [2, 2, 2, 2])), 'no k8s fails a Kubernetes filter');
  assert.ok(compile([{}])(f), 'an empty filter matches');
  assert.deepEqual(compileFilters([{}, { service_names: ['svc'], direction: 1 }]), { error: 'invalid filter 1: service_names cannot be used with direction FROM' });
  assert.deepEqual(compileFilters([{ ips: ['10.0.0.300'] }]), { error: 'invalid filter 0: invalid IP "10.0.0.300"' });
  assert.deepEqual([serviceName('ns/svc:http'), serviceName('ns/svc'), serviceName('svc')], ['svc', 'svc', '']);
});
