import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatIpv4, formatIpv6 } from '../../lib/ipfix/text.js';
import type { FlowRecord } from '../../schemas/flow-record.js';
import type { MetadataOptions } from '../metadata-fill.js';
import { aggregatorSettings, decodeOutput, type RecordSpec, scanned, staticMetadata } from '../testing/fakes.js';
import { Aggregator, type AggregatorSettings } from './aggregator.js';
import { ChangelogRecords } from './changelog-records.js';
import { compileOutputEncoder } from './output.js';
import { StateRestore } from './state-restore.js';
const NO_METADATA: MetadataOptions = { metadata: undefined, podLabels: false, includeK8sUIDs: false };
const encoder = compileOutputEncoder();

function aggregator(settings: Partial<AggregatorSettings> = {}, metadata = NO_METADATA): Aggregator {
  return new Aggregator(aggregatorSettings(settings), encoder, metadata);
}

/**
 * Feeds specs, then lets time pass second by second up to `until` (seconds), as the records of other
 * flows would move the watermark; returns the outputs decoded.
 */
function feed(ag: Aggregator, specs: readonly RecordSpec[], until?: number): FlowRecord[] {
  for (const spec of specs) {
    const r = scanned(spec);
    ag.process(r);
  }
  if (until !== undefined) {
    for (let t = Math.floor(ag.watermark / 1000) + 1; t <= Math.ceil(until); t++) {
      ag.tick(Math.min(t, until) * 1000);
      ag.expireDue();
    }
  }
  return ag.takeOutputs().map((o) => decodeOutput(o.value as Buffer));
}

const ip = (b: Buffer | null) => (b === null ? null : b.length === 4 ? formatIpv4(b, 0) : formatIpv6(b, 0));

// Reference §5.8 (go-ipfix collector_intermediate_test.go): the two halves of one inter-Node flow.
const T0 = 1_574_105_162; // the messages' export time
function golden(v6: boolean): [RecordSpec, RecordSpec] {
  const tuple = { src: v6 ? '2001:0:3238:dfe1:63::fefb' : '10.0.0.1', dst: v6 ? '2001:0:3238:dfe1:63::fefc' : '10.0.0.2', sport: 1234, dport: 5678, proto: 6, start: 1_257_893_000, exportTime: T0 };
  const service = v6 ? '2001:0:3238:bbbb:63::aaaa' : '10.0.0.3';
  const none = v6 ? '::' : '0.0.0.0';
  const ipField = (name: string) => `${name}IPv${v6 ? 6 : 4}`;
  return [
    { ...tuple, end: 1_257_894_000, flowEndReason: 2, packetTotalCount: 800, packetDeltaCount: 500, octetTotalCount: 800_000, reversePacketTotalCount: 300, reversePacketDeltaCount: 150, reverseOctetTotalCount: 300_000,
      sourcePodName: 'pod1', destinationPodName: '', destinationServicePort: 4739, flowType: 2, tcpState: 'ESTABLISHED', [ipField('destinationCluster')]: service, [ipField('destinationService')]: service },
    { ...tuple, end: 1_257_896_000, flowEndReason: 2, packetTotalCount: 1000, packetDeltaCount: 500, octetTotalCount: 1_000_000, reversePacketTotalCount: 400, reversePacketDeltaCount: 200, reverseOctetTotalCount: 400_000,
      sourcePodName: '', destinationPodName: 'pod2', destinationServicePort: 0, flowType: 2, tcpState: 'ESTABLISHED', [ipField('destinationCluster')]: none, [ipField('destinationService')]: none },
  ];
}

function assertGolden(out: FlowRecord, v6: boolean): void {
  assert.equal(out.sourcePodName, 'pod1');
  assert.equal(out.destinationPodName, 'pod2');
  assert.equal(out.flowEndMilliseconds, 1_257_896_000_000);
  assert.equal(out.flowStartMilliseconds, 1_257_893_000_000);
  assert.equal(out.flowEndSecondsFromDestinationNode, 1_257_896_000);
  assert.equal(out.flowEndSecondsFromSourceNode, 1_257_894_000);
  assert.deepEqual([out.packetDeltaCount, out.packetTotalCount, out.reversePacketDeltaCount, out.reversePacketTotalCount], [500, 1000, 200, 400]);
  assert.deepEqual([out.packetTotalCountFromSourceNode, out.packetDeltaCountFromSourceNode, out.packetTotalCountFromDestinationNode, out.packetDeltaCountFromDestinationNode], [800, 500, 1000, 500]);
  assert.deepEqual([out.reversePacketTotalCountFromSourceNode, out.reversePacketDeltaCountFromSourceNode, out.reversePacketTotalCountFromDestinationNode, out.reversePacketDeltaCountFromDestinationNode], [300, 150, 400, 200]);
  assert.deepEqual([out.octetTotalCount, out.reverseOctetTotalCount], [1_000_000, 400_000]);
  assert.equal(out.throughput, Math.floor((1_000_000 * 8) / 3000));
  assert.equal(out.reverseThroughput, Math.floor((400_000 * 8) / 3000));
  assert.equal(out.throughputFromSourceNode, (800_000 * 8) / 1000);
  assert.equal(out.throughputFromDestinationNode, Math.floor((1_000_000 * 8) / 3000));
  assert.equal(out.reverseThroughputFromSourceNode, (300_000 * 8) / 1000);
  assert.equal(out.reverseThroughputFromDestinationNode, Math.floor((400_000 * 8) / 3000));
  const service = v6 ? '2001:0:3238:bbbb:63::aaaa' : '10.0.0.3';
  assert.equal(ip(v6 ? out.destinationClusterIPv6 as Buffer : out.destinationClusterIPv4 as Buffer), service);
  assert.equal(ip(v6 ? out.destinationServiceIPv6 as Buffer : out.destinationServiceIPv4 as Buffer), service);
  assert.equal(out.destinationServicePort, 4739);
  assert.equal(out.flowEndReason, 2);
  assert.equal(out.tcpState, 'ESTABLISHED');
  assert.equal(ip(v6 ? out.sourceIPv6Address : out.sourceIPv4Address), v6 ? '2001:0:3238:dfe1:63::fefb' : '10.0.0.1');
  assert.equal(v6 ? out.sourceIPv4Address : out.sourceIPv6Address, null, 'only the flow\'s family');
  assert.equal(out.sequenceNumber, 0);
}

describe('reference §5.8 golden case', () => {
  for (const v6 of [false, true]) {
    for (const order of ['source Node first', 'destination Node first'] as const) {
      test(`${v6 ? 'IPv6' : 'IPv4'}, ${order}: one aggregated record, exported 1 s after correlation`, () => {
        const [src, dst] = golden(v6);
        const ag = aggregator();
        assert.deepEqual(feed(ag, order === 'source Node first' ? [src, dst] : [dst, src]), [], 'nothing before the export delay');
        const [out, ...rest] = feed(ag, [], T0 + 1);
        assert.equal(rest.length, 0);
        assertGolden(out!, v6);
        assert.equal(out!.exportTime, (T0 + 1) * 1000, 'stamped with the event time of the export');
      });
    }
  }
});

const tuple = { src: '10.10.1.5', dst: '10.10.2.7', sport: 40000, dport: 80, proto: 6 } as const;
const srcHalf = (t: number, packets: number, extra: Partial<RecordSpec> = {}): RecordSpec => ({
  ...tuple, start: 1000, end: t, exportTime: t, flowType: 2, sourcePodName: 'client', sourcePodNamespace: 'ns', sourceNodeName: 'node-a', destinationPodName: '',
  packetTotalCount: packets, packetDeltaCount: 10, octetTotalCount: packets * 100, octetDeltaCount: 1000, ...extra,
});
const dstHalf = (t: number, packets: number, extra: Partial<RecordSpec> = {}): RecordSpec => ({
  ...tuple, start: 1000, end: t, exportTime: t, flowType: 2, sourcePodName: '', destinationPodName: 'server', destinationPodNamespace: 'ns', destinationNodeName: 'node-b',
  packetTotalCount: packets, packetDeltaCount: 10, octetTotalCount: packets * 100, octetDeltaCount: 1000, ...extra,
});

describe('aggregation rules', () => {
  test('intra-Node: no correlation, both Node sides filled, exported 1 s after the first record', () => {
    const ag = aggregator();
    const intra = { ...tuple, start: 1000, end: 1005, exportTime: 1005, flowType: 1, sourcePodName: 'a', destinationPodName: 'b', sourceNodeName: 'n', destinationNodeName: 'n', packetTotalCount: 50, packetDeltaCount: 50, octetTotalCount: 5000, octetDeltaCount: 5000 };
    assert.deepEqual(feed(ag, [intra], 1005.999), []);
    const [out] = feed(ag, [], 1006);
    assert.deepEqual([out!.packetTotalCountFromSourceNode, out!.packetTotalCountFromDestinationNode, out!.packetDeltaCount], [50, 50, 50]);
    assert.deepEqual([out!.flowEndSecondsFromSourceNode, out!.flowEndSecondsFromDestinationNode], [1005, 1005]);
    assert.equal(out!.throughput, (5000 * 8) / 5);
  });

  test('inter-Node: the halves correlate whatever the order; only set fields are copied; deltas summed per Node, common from the latest', () => {
    for (const order of [0, 1]) {
      const ag = aggregator();
      const halves = [srcHalf(1010, 100, { destinationServicePortName: 'ns/svc:http', destinationServiceIPv4: '10.96.0.1' }), dstHalf(1011, 102, { destinationServicePortName: '', destinationServiceIPv4: '0.0.0.0' })];
      const outs = feed(ag, order === 0 ? halves : [halves[1]!, halves[0]!], 1012);
      assert.equal(outs.length, 1);
      const out = outs[0]!;
      assert.deepEqual([out.sourcePodName, out.sourcePodNamespace, out.sourceNodeName, out.destinationPodName, out.destinationNodeName], ['client', 'ns', 'node-a', 'server', 'node-b']);
      assert.equal(out.destinationServicePortName, 'ns/svc:http', 'a set field is never overwritten by an empty one');
      assert.equal(ip(out.destinationServiceIPv4 as Buffer), '10.96.0.1');
      assert.deepEqual([out.packetTotalCountFromSourceNode, out.packetTotalCountFromDestinationNode, out.packetTotalCount], [100, 102, 102]);
      assert.equal(out.packetDeltaCount, 10, 'the latest Node\'s delta, not the sum of both Nodes\'');
    }
  });

  test('the second half leaves flowEndReason and the Egress fields as the first half set them (Antrea\'s correlateRecords)', () => {
    const egressA = { egressName: 'egress-a', egressIP: '172.18.0.1', egressNodeName: 'node-a' };
    const egressB = { egressName: 'egress-b', egressIP: '172.18.0.2', egressNodeName: 'node-b' };
    const endOfFlow = srcHalf(1010, 100, { flowEndReason: 3, ...egressA });
    const active = dstHalf(1011, 102, { flowEndReason: 2, ...egressB });
    const egressOf = (out: FlowRecord) => ({ egressName: out.egressName, egressIP: out.egressIP, egressNodeName: out.egressNodeName });

    const [first] = feed(aggregator(), [endOfFlow, active], 1012);
    assert.equal(first!.flowEndReason, 3, 'END_OF_FLOW stays: the ACTIVE destination half does not overwrite it');
    assert.deepEqual(egressOf(first!), egressA, 'the source half\'s Egress, not its peer\'s');

    const [reversed] = feed(aggregator(), [active, endOfFlow], 1012);
    assert.equal(reversed!.flowEndReason, 3, 'END_OF_FLOW arriving second is taken by the aggregation rule');
    assert.deepEqual(egressOf(reversed!), egressB, 'the first half\'s Egress, whichever Node sent it');
    assert.equal(reversed!.sourcePodName, 'client', 'the correlated fields still come from both halves');

    const [emptyFirst] = feed(aggregator(), [dstHalf(1011, 102), srcHalf(1010, 100, egressA)], 1012);
    assert.deepEqual(egressOf(emptyFirst!), { egressName: '', egressIP: '', egressNodeName: '' }, 'not filled from the second half either');
  });

  test('per-Node totals are overwritten, deltas summed between exports, and reset after each export', () => {
    const ag = aggregator();
    feed(ag, [srcHalf(1010, 100), dstHalf(1010, 100)], 1011);
    const outs = feed(ag, [srcHalf(1015, 150), srcHalf(1020, 200), dstHalf(1016, 151)], 1071);
    assert.equal(outs.length, 1, 'one export per active timeout');
    const out = outs[0]!;
    assert.deepEqual([out.packetTotalCountFromSourceNode, out.packetDeltaCountFromSourceNode], [200, 20]);
    assert.deepEqual([out.packetTotalCountFromDestinationNode, out.packetDeltaCountFromDestinationNode], [151, 10]);
    assert.equal(out.packetTotalCount, 200, 'common total = max of the Nodes\' totals');
    assert.equal(out.packetDeltaCount, 20, 'common delta from the latest record\'s Node');
    assert.equal(out.throughputFromSourceNode, Math.floor(((200 - 150) * 100 * 8) / 5), 'octets since the previous record of that Node over its interval');
    assert.equal(out.sequenceNumber, 1);
  });

  test('stale records (not newer than the previous one from the same Node) are ignored', () => {
    const ag = aggregator();
    feed(ag, [srcHalf(1010, 100), dstHalf(1010, 100)], 1011);
    const outs = feed(ag, [srcHalf(1010, 999), srcHalf(1005, 999)], 1100);
    assert.deepEqual(outs, [], 'nothing new: no export');
    assert.equal(ag.counters.stale, 2);
  });

  test('an idle flow is exported once, then deleted after the inactive timeout without another export', () => {
    const ag = aggregator();
    assert.equal(feed(ag, [srcHalf(1010, 100), dstHalf(1010, 100)], 1011).length, 1);
    assert.equal(feed(ag, [], 1099).length, 0, 'no zero-delta record at the active timeout');
    assert.equal(ag.flows, 1);
    assert.equal(feed(ag, [], 1101).length, 0, 'no record at deletion');
    assert.equal(ag.flows, 0);
    const again = feed(ag, [srcHalf(1200, 300), dstHalf(1200, 300)], 1201);
    assert.equal(again.length, 1, 'a record after deletion starts a new flow');
    assert.equal(again[0]!.sequenceNumber, 0);
  });

  test('active expiry: at most once per activeFlowRecordTimeout, and only with new data', () => {
    const ag = aggregator();
    feed(ag, [srcHalf(1010, 100), dstHalf(1010, 100)], 1011);
    const times: number[] = [];
    for (let t = 1015; t < 1200; t += 5) times.push(...feed(ag, [srcHalf(t, t), dstHalf(t, t)]).map((o) => o.exportTime / 1000));
    assert.deepEqual(times, [1075, 1135, 1195], 'due 60 s after the previous export, at the first event time past it');
  });

  test('a half whose peer never comes is exported alone after the retry budget, or dropped', () => {
    const ag = aggregator();
    assert.equal(feed(ag, [srcHalf(1010, 100)], 1010 + 3 * 60 - 1).length, 0, 'waiting: three active expiries');
    const [out, ...rest] = feed(ag, [], 1010 + 3 * 60);
    assert.equal(rest.length, 0);
    assert.equal(out!.sourcePodName, 'client');
    assert.equal(out!.packetTotalCountFromSourceNode, 100);
    assert.equal(out!.packetTotalCountFromDestinationNode, 0);
    assert.equal(ag.counters.uncorrelatedExported, 1);
    const dropping = aggregator({ uncorrelated: 'drop' });
    assert.equal(feed(dropping, [srcHalf(1010, 100)], 2000).length, 0);
    assert.deepEqual([dropping.counters.uncorrelatedDropped, dropping.flows], [1, 0]);
  });

  test('a late peer still correlates a half that was exported alone', () => {
    const ag = aggregator({ inactiveMs: 1_000_000 });
    feed(ag, [srcHalf(1010, 100)], 1010 + 180);
    const [out] = feed(ag, [dstHalf(1200, 120)], 1202);
    assert.equal(out!.destinationPodName, 'server');
    assert.equal(out!.sourcePodName, 'client');
  });

  test('ToExternal: one record, both sides filled, no correlation', () => {
    const ag = aggregator();
    const [out] = feed(ag, [{ ...tuple, dst: '93.184.216.34', start: 1000, end: 1010, flowType: 3, sourcePodName: 'web', egressName: 'egress-a', egressIP: '172.18.0.9', egressNodeName: 'gw', packetTotalCount: 5, octetTotalCount: 500 }], 1011);
    assert.deepEqual([out!.egressName, out!.egressIP, out!.egressNodeName, out!.flowType], ['egress-a', '172.18.0.9', 'gw', 3]);
    assert.equal(out!.packetTotalCountFromDestinationNode, 5);
  });

  test('FromExternal with SNAT: the ingress Node\'s half (pre-SNAT) and the destination Node\'s (post-SNAT) make one flow from the client', () => {
    const client = { src: '172.18.0.1', sport: 61001 };
    const gateway = { src: '10.244.2.1', sport: 52391 };
    const ingress = { ...client, dst: '10.244.1.3', dport: 80, start: 1000, end: 1010, flowType: 4, sourcePodName: '', destinationPodName: '', proxySnatIPv4: '10.244.2.1', proxySnatPort: 52391, destinationServicePortName: 'ns/nginx:http', packetTotalCount: 7, octetTotalCount: 700 };
    // The destination Node sees the gateway's address, another Node's: an inter-Node flow to it.
    const destination = { ...gateway, dst: '10.244.1.3', dport: 80, start: 1000, end: 1011, flowType: 2, sourcePodName: '', destinationPodName: 'nginx', destinationPodNamespace: 'ns', packetTotalCount: 8, octetTotalCount: 800 };
    for (const order of [[ingress, destination], [destination, ingress]]) {
      const ag = aggregator();
      const outs = feed(ag, order, 1012);
      assert.equal(outs.length, 1, 'one flow: the ingress half\'s key is rewritten to the post-SNAT tuple');
      const out = outs[0]!;
      assert.deepEqual([ip(out.sourceIPv4Address), out.sourceTransportPort], ['172.18.0.1', 61001], 'the source is the external client');
      assert.deepEqual([ip(out.proxySnatIPv4 as Buffer), out.proxySnatPort, out.flowType], ['10.244.2.1', 52391, 4]);
      assert.deepEqual([out.destinationPodName, out.destinationServicePortName], ['nginx', 'ns/nginx:http']);
      assert.deepEqual([out.packetTotalCountFromSourceNode, out.packetTotalCountFromDestinationNode], [7, 8]);
    }
  });

  describe('deny flows skip correlation; the missing side is filled from Kubernetes at export', () => {
    const metadata = staticMetadata([{ ip: '10.10.2.7', namespace: 'ns', name: 'server', uid: '0b0c0d0e-0000-4000-8000-000000000001', nodeName: 'node-b', labels: { app: 'db' } }]);
    const cases = [
      ['egress drop', { egressNetworkPolicyRuleAction: 2, egressNetworkPolicyName: 'deny-out' }],
      ['egress reject', { egressNetworkPolicyRuleAction: 3, egressNetworkPolicyName: 'deny-out' }],
      ['ingress reject', { ingressNetworkPolicyRuleAction: 3, ingressNetworkPolicyName: 'deny-in' }],
    ] as const;
    for (const [name, policy] of cases) {
      test(name, () => {
        const ag = aggregator({}, { metadata, podLabels: true, includeK8sUIDs: false });
        const [out, ...rest] = feed(ag, [srcHalf(1010, 3, policy)], 1011);
        assert.equal(rest.length, 0, 'exported 1 s after the record, no waiting for a peer');
        assert.deepEqual([out!.destinationPodName, out!.destinationPodNamespace, out!.destinationNodeName], ['server', 'ns', 'node-b']);
        assert.deepEqual([out!.sourcePodLabels, out!.destinationPodLabels], ['', '{"app":"db"}'], 'the source Pod is unknown to the inventory: ""');
        assert.deepEqual([out!.packetTotalCountFromSourceNode, out!.packetTotalCountFromDestinationNode], [3, 3]);
      });
    }
  });

  test('ingress drop on an inter-Node flow still needs both halves', () => {
    const ag = aggregator();
    assert.deepEqual(feed(ag, [dstHalf(1010, 3, { ingressNetworkPolicyRuleAction: 2 })], 1020), []);
  });

  test('labels are looked up once, at the first export; "" when disabled', () => {
    const metadata = staticMetadata([{ ip: '10.10.1.5', namespace: 'ns', name: 'client', uid: 'u', nodeName: 'node-a', labels: { b: '2', a: '1' } }]);
    const ag = aggregator({}, { metadata, podLabels: true, includeK8sUIDs: false });
    const [first] = feed(ag, [srcHalf(1010, 1), dstHalf(1010, 1)], 1011);
    assert.equal(first!.sourcePodLabels, '{"a":"1","b":"2"}');
    const lookups = metadata.lookups;
    const [second] = feed(ag, [srcHalf(1020, 2)], 1071);
    assert.equal(second!.sourcePodLabels, '{"a":"1","b":"2"}');
    assert.equal(metadata.lookups, lookups);
    const [off] = feed(aggregator(), [srcHalf(1010, 1), dstHalf(1010, 1)], 1011);
    assert.deepEqual([off!.sourcePodLabels, off!.destinationPodLabels], ['', '']);
  });

  test('recordContents.podLabels turned on while running (Processor.setPodLabels): labels from the next flow exported on', () => {
    const metadata = staticMetadata([{ ip: '10.10.1.5', namespace: 'ns', name: 'client', uid: 'u', nodeName: 'node-a', labels: { app: 'web' } }]);
    const options = { metadata, podLabels: false, includeK8sUIDs: false };
    const ag = aggregator({}, options);
    const [before] = feed(ag, [srcHalf(1010, 1), dstHalf(1010, 1)], 1011);
    assert.equal(before!.sourcePodLabels, '');
    options.podLabels = true;
    const [after] = feed(ag, [srcHalf(1020, 1, { sport: 40001 }), dstHalf(1020, 1, { sport: 40001 })], 1021);
    assert.equal(after!.sourcePodLabels, '{"app":"web"}');
  });

  test('records without flow times are skipped and counted', () => {
    const ag = aggregator();
    feed(ag, [{ ...tuple, exportTime: 1000 }], 2000);
    assert.deepEqual([ag.counters.missingTimes, ag.flows], [1, 0]);
  });

  test('flows keep their state while the store grows past its capacity, the one that made it grow included', () => {
    const ag = aggregator();
    const flows = 3000;
    const specs = Array.from({ length: flows }, (_, i): RecordSpec => ({ ...tuple, sport: i, start: 1000, end: 1001, exportTime: 1001, flowType: 1, sourcePodName: 'a', destinationPodName: 'b', packetTotalCount: i + 1 }));
    const outs = feed(ag, specs, 1002);
    assert.equal(outs.length, flows, 'every flow exported 1 s after its record');
    assert.deepEqual(outs.map((o) => o.packetTotalCount).sort((a, b) => (a as number) - (b as number)), specs.map((s) => s.packetTotalCount));
  });

  test('a full partition expires the flow due soonest early, exporting it', () => {
    const ag = aggregator({ maxFlows: 2 });
    const flow = (port: number, t: number): RecordSpec => ({ ...tuple, sport: port, start: 1000, end: t, exportTime: t, flowType: 1, sourcePodName: 'a', destinationPodName: 'b', packetTotalCount: 1 });
    const outs = feed(ag, [flow(1, 1000), flow(2, 1000), flow(3, 1000)]);
    assert.deepEqual(outs.map((o) => o.sourceTransportPort), [1]);
    assert.deepEqual([ag.flows, ag.counters.evicted], [2, 1]);
  });
});

describe('time: sources, lateness, per-Node staleness', () => {
  const nodeA = { exporter: '192.0.2.10', observationDomainId: 10 };
  const nodeB = { exporter: '192.0.2.11', observationDomainId: 11 };

  test('a Node read far ahead of another does not expire the flows the other has not reported yet', () => {
    const ag = aggregator({ activeMs: 5000, inactiveMs: 10_000, clock: { idleMs: 15_000, maxAheadMs: 600_000, maxSources: 10 } });
    // Node A's records, 300 s of its time, read within a second before Node B's (a backlog, a faster connection).
    const received = (t: number) => ({ receiveTime: 1_000_000 + (t - 1000) });
    const outs = feed(ag, [srcHalf(1005, 10, { ...nodeA, ...received(1005) }), dstHalf(1005, 10, { ...nodeB, ...received(1005) })]);
    for (let t = 1010; t <= 1300; t += 5) outs.push(...feed(ag, [srcHalf(t, t, { ...nodeA, ...received(t) })]));
    assert.equal(ag.counters.uncorrelatedExported, 0, 'B holds the partition\'s time back');
    for (let t = 1010; t <= 1300; t += 5) outs.push(...feed(ag, [dstHalf(t, t, { ...nodeB, ...received(1300 + t) })]));
    outs.push(...feed(ag, [], 1400));
    const sums = outs.reduce((a, o) => [a[0]! + (o.packetDeltaCountFromSourceNode as number), a[1]! + (o.packetDeltaCountFromDestinationNode as number)], [0, 0]);
    assert.deepEqual(sums, [600, 600], 'every delta of both Nodes, in one flow');
    assert.ok(outs.every((o) => o.sourcePodName === 'client' && o.destinationPodName === 'server'));
  });

  test('a half waits the allowed lateness past Antrea\'s retries for its peer', () => {
    const ag = aggregator({ allowedLatenessMs: 60_000 });
    assert.equal(feed(ag, [srcHalf(1010, 100)], 1010 + 3 * 60 + 59).length, 0, 'still waiting, 239 s on');
    const [out] = feed(ag, [dstHalf(1249, 120)], 1251);
    assert.deepEqual([out!.sourcePodName, out!.destinationPodName, ag.counters.uncorrelatedExported], ['client', 'server', 0]);
    const alone = aggregator({ allowedLatenessMs: 60_000 });
    assert.equal(feed(alone, [srcHalf(1010, 100)], 1010 + 3 * 60 + 60).length, 1, 'exported alone once the lateness is spent too');
  });

  test('an inactive flow lingers the allowed lateness: a late record joins it, counted late once past the lateness', () => {
    const ag = aggregator({ allowedLatenessMs: 30_000 });
    feed(ag, [srcHalf(1010, 100), dstHalf(1010, 100)], 1101);
    assert.equal(ag.flows, 1, 'inactive at 1100, kept until 1130');
    // Exported at the flow's next active deadline (1131), as any record aggregated into a flow is.
    const [late] = feed(ag, [{ ...dstHalf(1020, 110), exportTime: 1020, ...nodeB }], 1131);
    assert.deepEqual([late!.sequenceNumber, late!.packetDeltaCountFromDestinationNode, late!.packetTotalCountFromDestinationNode], [1, 10, 110], 'the same flow, its second export');
    assert.equal(ag.counters.late, 1, '82 s behind a partition time of 1102 s');
    feed(ag, [], 1300);
    assert.equal(ag.flows, 0);
  });

  test('a flow that needs no correlation keeps each Node\'s flow end: a record of one Node after a later-ending one of the other is not stale', () => {
    const ag = aggregator();
    const deny = { egressNetworkPolicyRuleAction: 2 };
    const outs = feed(ag, [srcHalf(1010, 10, { ...deny, ...nodeA }), dstHalf(1008, 10, { ...deny, ...nodeB }), srcHalf(1008, 20, { ...deny, ...nodeA })], 1200);
    assert.equal(ag.counters.stale, 1, 'only Node A\'s record ending before its own previous one');
    assert.equal(outs.reduce((n, o) => n + (o.packetDeltaCountFromSourceNode as number), 0), 20, 'both Nodes\' first records aggregated');
  });
});

describe('state through the changelog', () => {
  /** A workload of many flows, records interleaved, with time moving on. */
  function workload(): RecordSpec[] {
    const out: RecordSpec[] = [];
    for (let round = 0; round < 12; round++) {
      for (let f = 0; f < 40; f++) {
        const t = 1000 + round * 15 + (f % 5);
        const base = { ...tuple, sport: 30000 + f, start: 990 };
        if (f % 4 === 0) out.push({ ...base, end: t, exportTime: t, flowType: 1, sourcePodName: 'a', destinationPodName: 'b', packetTotalCount: round * 10 + 1, packetDeltaCount: 10, octetTotalCount: round * 1000 + 1 });
        else if (f % 4 === 1 && round < 8) out.push(srcHalf(t, round * 5 + 1, { sport: 30000 + f }));
        else {
          out.push(srcHalf(t, round * 7 + 1, { sport: 30000 + f }));
          if (round % 3 !== 2) out.push(dstHalf(t + 1, round * 7 + 2, { sport: 30000 + f }));
        }
      }
    }
    return out;
  }

  test('restoring from the changelog at any point gives the same outputs, byte for byte, as never stopping', () => {
    const specs = workload();
    const straight = aggregator();
    for (const spec of specs) {
      const r = scanned(spec);
      straight.process(r);
    }
    straight.tick(5000 * 1000);
    straight.expireDue();
    const expected = straight.takeOutputs().map((o) => (o.value as Buffer).toString('hex'));
    // A commit every 17 records and at the cut; a checkpoint at every `checkpointEvery`-th commit only, so
    // that a restore reads the records after the last checkpoint again and drops the outputs committed.
    for (const checkpointEvery of [1, 3, 1000]) {
      for (const cut of [1, 37, 200, 333, specs.length - 1]) {
        let ag = aggregator();
        const changelog: { key: Buffer; value: Buffer | null }[] = [];
        const outputs: string[] = [];
        let commits = 0;
        let checkpointAt = 0;
        const commit = (n: number) => {
          const entries = new ChangelogRecords(0);
          if (commits++ % checkpointEvery === 0) {
            ag.takeCheckpoint(entries, n + 1);
            checkpointAt = n + 1;
          } else ag.takeProgress(entries, n + 1);
          changelog.push(...entries.produceRecords().map((e) => ({ key: Buffer.from(e.key!), value: e.value === null ? null : Buffer.from(e.value) })));
          outputs.push(...ag.takeOutputs().map((o) => (o.value as Buffer).toString('hex')));
        };
        for (let n = 0; n < specs.length; n++) {
          ag.process(scanned(specs[n]!));
          if (n % 17 === 0 || n === cut) commit(n);
          if (n === cut) {
            // A crash after the commit: outputs made since are lost with the process, as they were never committed.
            ag = aggregator();
            const restore = new StateRestore(ag);
            for (const e of changelog) restore.apply(e.key, e.value);
            restore.finish();
            assert.equal(restore.inputOffset, cut + 1);
            assert.equal(restore.checkpoint?.inputOffset, checkpointAt);
            for (let again = checkpointAt; again <= cut; again++) ag.process(scanned(specs[again]!));
          }
        }
        ag.tick(5000 * 1000);
        ag.expireDue();
        outputs.push(...ag.takeOutputs().map((o) => (o.value as Buffer).toString('hex')));
        assert.deepEqual(outputs, expected, `checkpoint every ${checkpointEvery} commits, restored after record ${cut}`);
      }
    }
    assert.ok(expected.length > 40);
  });

  test('discarding a restored state tombstones every flow and exports nothing', () => {
    const ag = aggregator();
    feed(ag, workload().slice(0, 200));
    const flows = ag.flows;
    ag.takeOutputs();
    ag.takeCheckpoint(new ChangelogRecords(0), 200);
    ag.discard();
    const after = new ChangelogRecords(0);
    ag.takeCheckpoint(after, 0);
    assert.equal(after.produceRecords().filter((e) => e.value === null).length, 2 * flows + 1, 'both keys of every flow, and the one source of the clock');
    assert.deepEqual([ag.flows, ag.takeOutputs().length, ag.watermark], [0, 0, 0]);
  });
});
