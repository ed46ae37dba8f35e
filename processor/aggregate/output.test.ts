import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { RecordBuffer } from '../../schemas/record-buffer.js';
import { flowRecordWriter } from '../../schemas/flow-record.js';
import { aggregatorSettings, type RecordSpec, scanned, staticMetadata } from '../testing/fakes.js';
import { Aggregator } from './aggregator.js';
import { aggregatedRecord, compileOutputEncoder } from './output.js';

const text = fc.oneof(fc.constant(''), fc.string({ maxLength: 12 }), fc.constantFrom('pod-é', 'ns/svc:http', 'ESTABLISHED', '日本'));
const uuid = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b));

const spec = fc.record({
  family: fc.constantFrom(4, 6),
  sport: fc.nat(3), dport: fc.nat(65535), proto: fc.constantFrom(6, 17),
  start: fc.integer({ min: 1000, max: 1100 }), duration: fc.nat(30),
  flowType: fc.constantFrom(1, 2, 3, 4), side: fc.constantFrom('src', 'dst', 'both'),
  packets: fc.nat(1_000_000), octets: fc.nat(2 ** 40), delta: fc.nat(1000),
  egressAction: fc.constantFrom(0, 1, 2, 3), ingressAction: fc.constantFrom(0, 1, 3),
  name: text, namespace: text, node: text, portName: text, tcpState: text, egress: text,
  servicePort: fc.nat(65535), uuid: fc.option(uuid, { nil: undefined }), snat: fc.boolean(),
}).map((g): RecordSpec => {
  const addr = g.family === 4 ? ['10.0.0.1', '10.0.0.2', '10.96.0.9'] : ['fd00::1', 'fd00::2', 'fd00::96'];
  return {
    src: addr[0], dst: addr[1], sport: g.sport, dport: g.dport % 4, proto: g.proto, start: g.start, end: g.start + g.duration, exportTime: g.start + g.duration,
    flowType: g.flowType, sourcePodName: g.side === 'dst' ? '' : g.name, destinationPodName: g.side === 'src' ? '' : `${g.name}-b`,
    sourcePodNamespace: g.namespace, destinationNodeName: g.node, destinationServicePortName: g.portName, tcpState: g.tcpState, egressName: g.egress,
    packetTotalCount: g.packets, octetTotalCount: g.octets, packetDeltaCount: g.delta, reverseOctetDeltaCount: g.delta,
    egressNetworkPolicyRuleAction: g.egressAction, ingressNetworkPolicyRuleAction: g.ingressAction, destinationServicePort: g.servicePort,
    [g.family === 4 ? 'destinationServiceIPv4' : 'destinationServiceIPv6']: addr[2],
    ...(g.uuid === undefined ? {} : { sourcePodUUID: g.uuid }),
    ...(g.snat ? { [g.family === 4 ? 'proxySnatIPv4' : 'proxySnatIPv6']: addr[2], proxySnatPort: 40000 } : {}),
  };
});

test('the compiled output writer gives the reference writer\'s bytes for every flow state', () => {
  const encode = compileOutputEncoder();
  const writer = flowRecordWriter();
  const metadata = staticMetadata([{ ip: '10.0.0.2', namespace: 'ns', name: 'b', uid: '0b0c0d0e-0000-4000-8000-000000000001', nodeName: 'n', labels: { x: 'y' } }]);
  fc.assert(fc.property(fc.array(spec, { minLength: 1, maxLength: 40 }), (specs) => {
    const ag = new Aggregator(aggregatorSettings({ activeMs: 10_000, inactiveMs: 20_000, correlationRetries: 1, maxFlows: 1000 }), encode, { metadata, podLabels: true, includeK8sUIDs: true });
    const out = new RecordBuffer();
    let checked = 0;
    for (const s of specs) {
      const r = scanned(s);
      ag.process(r);
      for (const slot of ag.store.slots()) {
        encode(ag.store, slot, 123_456, out);
        assert.deepEqual(out.value(), writer.encode(aggregatedRecord(ag.store, slot, 123_456)));
        checked++;
      }
    }
    assert.ok(checked > 0);
  }), { numRuns: 150 });
});
