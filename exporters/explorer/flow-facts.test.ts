import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowRecord, numberedRecord } from '../testing/records.js';
import { flowFacts, workloadOf } from './flow-facts.js';
import { searchPredicate } from './search-filter.js';

const ip4 = (text: string) => Buffer.from(text.split('.').map(Number));

test('workloadOf: the owner a Pod name says, else the Pod', () => {
  assert.equal(workloadOf('web-7d9f8c6b5-x2x4z'), 'web');
  assert.equal(workloadOf('fluentd-8kq2p'), 'fluentd');
  assert.equal(workloadOf('db-0'), 'db');
  assert.equal(workloadOf('standalone'), 'standalone');
});

test('flowFacts: an aggregated record counts the source Node\'s deltas once it reported, else the destination Node\'s', () => {
  const both = flowRecord({
    flowEndMilliseconds: 5000, flowEndSecondsFromSourceNode: 5, flowEndSecondsFromDestinationNode: 5,
    octetDeltaCountFromSourceNode: 100, reverseOctetDeltaCountFromSourceNode: 20, packetDeltaCountFromSourceNode: 3, reversePacketDeltaCountFromSourceNode: 1,
    octetDeltaCountFromDestinationNode: 999, octetDeltaCount: 999,
  });
  assert.deepEqual([flowFacts(both, 0).bytes, flowFacts(both, 0).packets], [120, 4]);
  const destinationOnly = flowRecord({ flowEndSecondsFromDestinationNode: 5, octetDeltaCountFromDestinationNode: 70, packetDeltaCountFromDestinationNode: 2 });
  assert.deepEqual([flowFacts(destinationOnly, 0).bytes, flowFacts(destinationOnly, 0).packets], [70, 2]);
  const proxied = flowRecord({ octetDeltaCount: 40, reverseOctetDeltaCount: 2, packetDeltaCount: 1 });
  assert.deepEqual([flowFacts(proxied, 0).bytes, flowFacts(proxied, 42).time], [42, 42]);
});

test('flowFacts: endpoints, Service, external destination and the policy that denied', () => {
  const f = flowFacts(numberedRecord(1), 0);
  assert.deepEqual([f.source, f.destination, f.service, f.node], [
    { namespace: 'perf', workload: 'client', pod: 'client-1' }, { namespace: 'perf', workload: 'server', pod: 'server' }, 'perf/server:5201', 'node-a',
  ]);
  const out = flowFacts(flowRecord({
    sourceIPv4Address: ip4('10.0.0.5'), destinationIPv4Address: ip4('203.0.113.9'), sourcePodName: 'web-1', sourcePodNamespace: 'shop',
    egressNetworkPolicyRuleAction: 2, egressNetworkPolicyName: 'lockdown', egressNetworkPolicyNamespace: 'shop', egressNetworkPolicyRuleName: 'drop-all',
  }), 0);
  assert.deepEqual(out.destination, { namespace: 'external', workload: '203.0.113.9', pod: '203.0.113.9' });
  assert.equal(out.external, '203.0.113.9');
  assert.deepEqual(out.denial, { direction: 'egress', policy: 'shop/lockdown', rule: 'drop-all', action: 'Drop', namespace: 'shop' });
  assert.equal(flowFacts(flowRecord({ ingressNetworkPolicyRuleAction: 1 }), 0).denial, undefined, 'Allow is no denial');
});

test('searchPredicate: every filter given must hold; one that cannot be used names itself', () => {
  const r = numberedRecord(3, { sourcePodLabels: '{"app":"client","tier":"front"}' });
  const f = flowFacts(r, 0);
  const matches = (query: string) => searchPredicate(new URL(`http://x/?${query}`))(r, f);
  assert.ok(matches('namespace=perf&pod=server&port=5201&protocol=tcp&node=node-b&flowType=interNode'));
  assert.ok(matches('src=perf/client-3&dst=perf&ip=10.1.0.0/16&label=app%3Dclient&service=perf/server&denied=false'));
  assert.ok(!matches('src=perf/server'), 'src names the source end only');
  assert.ok(!matches('pod=server&protocol=udp'));
  assert.ok(!matches('denied=true'));
  assert.throws(() => matches('ip=10.1.0.0/99'), { status: 400, message: /ip: invalid CIDR/ });
  assert.throws(() => matches('protocol=gre'), { status: 400, message: /protocol: "gre"/ });
  assert.throws(() => matches('label=app%3D%3D%3D'), { status: 400, message: /^label:/ });
});
