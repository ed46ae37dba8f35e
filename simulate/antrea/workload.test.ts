import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowRecordReader } from '../../schemas/flow-record.js';
import { FLOW_KINDS, MAX_NODES, agentFieldNames, antreaWorkload, fnv1 } from './workload.js';
import { FlowRecordEncoder } from './records.js';

test('the same seed gives the same records; every kind, both families, both arrival orders of the halves', () => {
  const w = antreaWorkload({ nodes: 6, flows: 400, seed: 7, ipv6Share: 0.2 });
  const a = [...w.records()];
  const b = [...antreaWorkload({ nodes: 6, flows: 400, seed: 7, ipv6Share: 0.2 }).records()];
  assert.deepEqual(a, b);
  assert.equal(a.length, w.recordCount);
  assert.deepEqual(new Set(Array.from({ length: 400 }, (_, i) => w.flow(i).kind)), new Set(FLOW_KINDS));
  assert.deepEqual(new Set(Array.from({ length: 400 }, (_, i) => w.flow(i).family)), new Set([4, 6]));
  for (let i = 1; i < a.length; i++) assert.ok(a[i]!.exportTime >= a[i - 1]!.exportTime, 'export-time order');
  const firstHalf = new Map<number, string>();
  for (const r of a) if (w.flow(r.flow).reporters.length === 2 && !firstHalf.has(r.flow)) firstHalf.set(r.flow, r.half);
  assert.deepEqual(new Set(firstHalf.values()), new Set(['source', 'destination']));
  const perHalf = new Map<string, number>();
  for (const r of a) perHalf.set(`${r.flow}/${r.half}`, (perHalf.get(`${r.flow}/${r.half}`) ?? 0) + 1);
  assert.ok([...perHalf.values()].every((n) => n === 5));
  assert.notDeepEqual([...antreaWorkload({ nodes: 6, flows: 400, seed: 8 }).records()].slice(0, 10), a.slice(0, 10));
});

test('the FlowRecords are what ingest writes; totals grow by the plan\'s rate; the ends of a FROM_EXTERNAL flow share a key', () => {
  const w = antreaWorkload({ nodes: 4, flows: 300, seed: 3, mix: { fromExternal: 1, interNode: 1 } });
  const encoder = new FlowRecordEncoder();
  const reader = flowRecordReader();
  const keys = new Map<number, Set<string>>();
  for (const r of w.records()) {
    const { key, value } = encoder.flowRecord(r);
    const rec = reader.decode(value);
    const plan = w.flow(r.flow);
    assert.equal(rec.packetTotalCount, plan.rate.packets * (r.round + 1));
    assert.equal(rec.exporterAddress, r.node.address);
    assert.equal(rec.observationDomainId, r.node.observationDomainId);
    assert.equal(rec.exportTime, r.exportTime * 1000);
    keys.set(r.flow, (keys.get(r.flow) ?? new Set()).add(key.toString('hex')));
  }
  assert.ok([...keys.values()].every((k) => k.size === 1), 'both halves of every flow have one key (the FROM_EXTERNAL rewrite included)');
});

test('FNV-1 32 of a Node name, as Go\'s hash/fnv New32', () => {
  assert.equal(fnv1(''), 0x811c9dc5);
  assert.equal(fnv1('a'), 0x050c5d7e);
  assert.equal(fnv1('foobar'), 0x31f0b262);
});

test('flows past `flows` start as the earlier ones end, with tuples of their own: the next generation', () => {
  const w = antreaWorkload({ nodes: 4, flows: 200, seed: 5 });
  const { recordsPerHalf: n, exportIntervalS: interval } = w.options;
  const encoder = new FlowRecordEncoder();
  const keys = (from: number, to: number) => new Set([...w.records(from, to)].map((r) => encoder.flowRecord(r).key.toString('hex')));
  const first = keys(0, 200);
  const second = keys(200, 400);
  assert.ok([...second].every((k) => !first.has(k)), 'no flow key of the first generation comes back in the second');
  for (let i = 0; i < 200; i++) {
    const gap = w.flow(i + 200).start - w.flow(i).start;
    assert.ok(gap > (n - 1) * interval && gap < (n + 1) * interval, `flow ${i + 200} starts ${gap} s after flow ${i}`);
  }
  const times = [...w.records(200, 400)].map((r) => r.exportTime);
  assert.ok(times.every((t, i) => i === 0 || t >= times[i - 1]!), 'export-time order');
  assert.ok([...w.records(200, 400)].every((r) => r.flow >= 200 && r.flow < 400));
});

test('workloads numbered from different first Nodes share no Node, observation domain, Pod address or flow key', () => {
  const encoder = new FlowRecordEncoder();
  const of = (firstNode: number) => {
    const w = antreaWorkload({ nodes: 3, firstNode, flows: 300, seed: firstNode === 0 ? 1 : 2, mix: { interNode: 1, fromExternal: 1, intraNode: 1, toExternal: 1 } });
    const records = [...w.records()];
    return {
      nodes: new Set(w.nodes.flatMap((n) => [n.name, n.address, String(n.observationDomainId)])),
      keys: new Set(records.map((r) => encoder.flowRecord(r).key.toString('hex'))),
      names: new Set(records.map((r) => r.node.name)),
    };
  };
  const [a, b] = [of(0), of(3)];
  assert.deepEqual(a.names, new Set(['node-0', 'node-1', 'node-2']));
  assert.deepEqual(b.names, new Set(['node-3', 'node-4', 'node-5']));
  assert.ok([...b.nodes].every((x) => !a.nodes.has(x)), 'Node names, addresses and domains of their own');
  assert.ok([...b.keys].every((k) => !a.keys.has(k)), 'flows of their own');
  assert.throws(() => antreaWorkload({ nodes: 10, firstNode: MAX_NODES - 5, flows: 1 }), RangeError);
});

test('a record\'s values are where the template names them: its times, ports, addresses, counters, Pods and state', () => {
  const w = antreaWorkload({ nodes: 4, flows: 400, seed: 11, ipv6Share: 0.3 });
  for (const r of w.records()) {
    const plan = w.flow(r.flow);
    const ip = r.family === 4 ? 'IPv4' : 'IPv6';
    const v = Object.fromEntries(agentFieldNames(r.family).map((name, i) => [name, r.values[i]]));
    const last = r.round === w.options.recordsPerHalf - 1;
    assert.equal(v.flowEndSeconds, r.exportTime);
    assert.ok((v.flowStartSeconds as number) < r.exportTime);
    assert.equal(v.flowEndReason, last ? 3 : 2);
    assert.equal(v.tcpState, last ? 'TIME_WAIT' : 'ESTABLISHED');
    assert.equal(v.destinationTransportPort, plan.destinationPort);
    assert.equal(v.protocolIdentifier, plan.protocol);
    assert.equal(v[`destination${ip}Address`], plan.destinationAddress);
    assert.deepEqual([v.packetDeltaCount, v.octetDeltaCount, v.reversePacketDeltaCount, v.reverseOctetDeltaCount], [plan.rate.packets, plan.rate.octets, plan.rate.reversePackets, plan.rate.reverseOctets]);
    assert.deepEqual([v.packetTotalCount, v.reverseOctetTotalCount], [plan.rate.packets * (r.round + 1), plan.rate.reverseOctets * (r.round + 1)]);
    const ends = w.ends(plan);
    if (v.sourcePodName !== '') assert.deepEqual([v.sourcePodName, v.sourcePodNamespace, v.sourceNodeName], [ends.source!.name, ends.source!.namespace, ends.source!.node]);
    if (v.destinationPodName !== '') assert.deepEqual([v.destinationPodName, v.destinationPodNamespace, v.destinationNodeName], [ends.destination!.name, ends.destination!.namespace, ends.destination!.node]);
    const policy = ends.policy;
    const named = policy?.direction === 'ingress' ? v.ingressNetworkPolicyName : policy?.direction === 'egress' ? v.egressNetworkPolicyName : '';
    assert.equal(named, policy?.name ?? '');
    if (plan.kind === 'toExternal') assert.equal(v.egressName, 'egress-prod');
    if (plan.kind === 'fromExternal' && r.half === 'source') assert.equal(v.proxySnatPort, 30_000 + (plan.index % 30_000));
  }
});
