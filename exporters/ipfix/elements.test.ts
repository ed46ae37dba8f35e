// Template compatibility with Antrea, element by element (reference §4.2, §4.3): names, element ids,
// enterprise numbers, lengths and order, for both modes, names on/off, UIDs on/off, IPv4/IPv6. The
// expected lists are written out here from the reference, not derived from elements.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLOW_RECORD_FIELDS, flowRecordWriter } from '../../schemas/flow-record.js';
import { FlowRecordScanner, ScannedRecord } from '../../schemas/flow-record-scanner.js';
import { flowRecord } from '../testing/records.js';
import { flowTemplateElements, templateElements } from './elements.js';
import { exportTemplates } from './templates.js';

const V = 65535;
// [name, pen, id, length] of the default Aggregate IPv4 template, in order (70 elements).
const AGGREGATE_IPV4: readonly (readonly [string, number, number, number])[] = [
  ['flowStartSeconds', 0, 150, 4], ['flowEndSeconds', 0, 151, 4], ['flowEndReason', 0, 136, 1], ['sourceTransportPort', 0, 7, 2],
  ['destinationTransportPort', 0, 11, 2], ['protocolIdentifier', 0, 4, 1], ['packetTotalCount', 0, 86, 8], ['octetTotalCount', 0, 85, 8],
  ['packetDeltaCount', 0, 2, 8], ['octetDeltaCount', 0, 1, 8], ['sourceIPv4Address', 0, 8, 4], ['destinationIPv4Address', 0, 12, 4],
  ['reversePacketTotalCount', 29305, 86, 8], ['reverseOctetTotalCount', 29305, 85, 8], ['reversePacketDeltaCount', 29305, 2, 8], ['reverseOctetDeltaCount', 29305, 1, 8],
  ['sourcePodName', 56506, 101, V], ['sourcePodNamespace', 56506, 100, V], ['sourceNodeName', 56506, 104, V],
  ['destinationPodName', 56506, 103, V], ['destinationPodNamespace', 56506, 102, V], ['destinationNodeName', 56506, 105, V],
  ['destinationServicePort', 56506, 108, 2], ['destinationServicePortName', 56506, 109, V],
  ['ingressNetworkPolicyName', 56506, 110, V], ['ingressNetworkPolicyNamespace', 56506, 111, V], ['ingressNetworkPolicyType', 56506, 115, 1],
  ['ingressNetworkPolicyRuleName', 56506, 141, V], ['ingressNetworkPolicyRuleAction', 56506, 139, 1],
  ['egressNetworkPolicyName', 56506, 112, V], ['egressNetworkPolicyNamespace', 56506, 113, V], ['egressNetworkPolicyType', 56506, 118, 1],
  ['egressNetworkPolicyRuleName', 56506, 142, V], ['egressNetworkPolicyRuleAction', 56506, 140, 1],
  ['tcpState', 56506, 136, V], ['flowType', 56506, 137, 1],
  ['egressName', 56506, 153, V], ['egressIP', 56506, 154, V], ['egressNodeName', 56506, 157, V],
  ['proxySnatPort', 56506, 172, 2], ['proxySnatIPv4', 56506, 170, 4], ['destinationClusterIPv4', 56506, 106, 4], ['destinationServiceIPv4', 56506, 168, 4],
  ['octetDeltaCountFromSourceNode', 56506, 123, 8], ['octetDeltaCountFromDestinationNode', 56506, 131, 8],
  ['octetTotalCountFromSourceNode', 56506, 121, 8], ['octetTotalCountFromDestinationNode', 56506, 129, 8],
  ['packetDeltaCountFromSourceNode', 56506, 122, 8], ['packetDeltaCountFromDestinationNode', 56506, 130, 8],
  ['packetTotalCountFromSourceNode', 56506, 120, 8], ['packetTotalCountFromDestinationNode', 56506, 128, 8],
  ['reverseOctetDeltaCountFromSourceNode', 56506, 127, 8], ['reverseOctetDeltaCountFromDestinationNode', 56506, 135, 8],
  ['reverseOctetTotalCountFromSourceNode', 56506, 125, 8], ['reverseOctetTotalCountFromDestinationNode', 56506, 133, 8],
  ['reversePacketDeltaCountFromSourceNode', 56506, 126, 8], ['reversePacketDeltaCountFromDestinationNode', 56506, 134, 8],
  ['reversePacketTotalCountFromSourceNode', 56506, 124, 8], ['reversePacketTotalCountFromDestinationNode', 56506, 132, 8],
  ['flowEndSecondsFromSourceNode', 56506, 151, 4], ['flowEndSecondsFromDestinationNode', 56506, 152, 4],
  ['throughput', 56506, 145, 8], ['throughputFromSourceNode', 56506, 147, 8], ['throughputFromDestinationNode', 56506, 148, 8],
  ['reverseThroughput', 56506, 146, 8], ['reverseThroughputFromSourceNode', 56506, 149, 8], ['reverseThroughputFromDestinationNode', 56506, 150, 8],
  ['sourcePodLabels', 56506, 143, V], ['destinationPodLabels', 56506, 144, V], ['clusterId', 56506, 158, V],
];
const PROXY_EXTRAS = [['originalObservationDomainId', 0, 405, 4], ['originalExporterIPv4Address', 0, 403, 4], ['originalExporterIPv6Address', 0, 404, 16], ['flowDirection', 0, 61, 1]] as const;
const AGGREGATE_ONLY = AGGREGATE_IPV4.slice(43, 67).map(([n]) => n);
const IPV6 = new Map<string, readonly [string, number, number, number]>([
  ['sourceIPv4Address', ['sourceIPv6Address', 0, 27, 16]], ['destinationIPv4Address', ['destinationIPv6Address', 0, 28, 16]],
  ['proxySnatIPv4', ['proxySnatIPv6', 56506, 171, 16]], ['destinationClusterIPv4', ['destinationClusterIPv6', 56506, 107, 16]],
  ['destinationServiceIPv4', ['destinationServiceIPv6', 56506, 169, 16]],
]);
// With includeK8sUIDs, each UUID (octetArray, 16 bytes) follows the name elements it belongs to.
const UUID_AFTER: readonly (readonly [string, string, number])[] = [
  ['sourcePodNamespace', 'sourcePodUUID', 159], ['sourceNodeName', 'sourceNodeUUID', 161], ['destinationPodNamespace', 'destinationPodUUID', 160],
  ['destinationNodeName', 'destinationNodeUUID', 162], ['destinationServicePortName', 'destinationServiceUUID', 163],
  ['ingressNetworkPolicyNamespace', 'ingressNetworkPolicyUUID', 164], ['egressNetworkPolicyNamespace', 'egressNetworkPolicyUUID', 165],
  ['egressName', 'egressUUID', 166], ['egressNodeName', 'egressNodeUUID', 167],
];
const NAME_ONLY = new Set([
  'sourcePodName', 'sourcePodNamespace', 'sourceNodeName', 'destinationPodName', 'destinationPodNamespace', 'destinationNodeName', 'destinationServicePortName',
  'ingressNetworkPolicyName', 'ingressNetworkPolicyNamespace', 'egressNetworkPolicyName', 'egressNetworkPolicyNamespace', 'egressName', 'egressNodeName',
]);
const RULE_NAMES = new Set(['ingressNetworkPolicyRuleName', 'egressNetworkPolicyRuleName']);

type Row = readonly [string, number, number, number];

function expected(mode: 'Aggregate' | 'Proxy', ipv6: boolean, names: boolean, uids: boolean): Row[] {
  let rows: Row[] = AGGREGATE_IPV4.map((r) => (ipv6 ? IPV6.get(r[0]) ?? r : r));
  if (mode === 'Proxy') rows = [...rows.filter(([n]) => !AGGREGATE_ONLY.includes(n)), ...PROXY_EXTRAS];
  if (uids) {
    rows = rows.flatMap((r) => {
      const u = UUID_AFTER.find(([after]) => after === r[0]);
      return u === undefined ? [r] : [r, [u[1], 56506, u[2], 16] as Row];
    });
  }
  return rows.filter(([n]) => (names || !NAME_ONLY.has(n)) && (names || uids || !RULE_NAMES.has(n)));
}

const actual = (mode: 'Aggregate' | 'Proxy', ipv6: boolean, names: boolean, uids: boolean): Row[] => {
  const t = exportTemplates({ mode, includeK8sNames: names, includeK8sUIDs: uids }, 1, '');
  return (ipv6 ? t.ipv6 : t.ipv4).template.fields.map((f) => [f.ie.name, f.ie.pen, f.ie.id, f.length] as Row);
};

test('the default templates have 70 elements (Aggregate) and 50 (Proxy), IPv4 and IPv6 alike', () => {
  for (const ipv6 of [false, true]) {
    assert.equal(templateElements({ mode: 'Aggregate', ipv6, includeK8sNames: true, includeK8sUIDs: false }).length, 70);
    assert.equal(templateElements({ mode: 'Proxy', ipv6, includeK8sNames: true, includeK8sUIDs: false }).length, 50);
  }
});

test('every template matches the reference element by element: name, enterprise, id, length, order', () => {
  for (const mode of ['Aggregate', 'Proxy'] as const) {
    for (const ipv6 of [false, true]) {
      for (const names of [true, false]) {
        for (const uids of [false, true]) {
          assert.deepEqual(actual(mode, ipv6, names, uids), expected(mode, ipv6, names, uids), `${mode} ${ipv6 ? 'IPv6' : 'IPv4'} names=${names} uids=${uids}`);
        }
      }
    }
  }
});

test('template ids are 256 (IPv4) and 257 (IPv6)', () => {
  const t = exportTemplates({ mode: 'Aggregate', includeK8sNames: true, includeK8sUIDs: false }, 7, '');
  assert.deepEqual([t.ipv4.template.id, t.ipv6.template.id, t.ipv4.template.observationDomainId], [256, 257, 7]);
});

test('the flow templates (258 IPv4, 259 IPv6) hold only IANA and RFC 5103 reverse elements, each a typed FlowRecord field, and are for records without a flowType', () => {
  const t = exportTemplates({ mode: 'Proxy', includeK8sNames: true, includeK8sUIDs: false }, 7, '');
  assert.deepEqual([t.flowIpv4.template.id, t.flowIpv6.template.id], [258, 259]);
  const typed = new Set(FLOW_RECORD_FIELDS.flatMap((f) => (f.kind === 'element' || f.kind === 'time' ? [f.name] : [])));
  for (const ipv6 of [false, true]) {
    const fields = (ipv6 ? t.flowIpv6 : t.flowIpv4).template.fields;
    assert.deepEqual(fields.filter((f) => f.ie.pen !== 0 && f.ie.pen !== 29305).map((f) => f.ie.name), []);
    assert.deepEqual(fields.filter((f) => !typed.has(f.ie.name)).map((f) => f.ie.name), []);
    assert.deepEqual(flowTemplateElements(ipv6), fields.map((f) => f.ie.name));
  }
  const scanner = new FlowRecordScanner();
  const templateOf = (fields: Partial<Record<string, unknown>>) => {
    const scanned = new ScannedRecord();
    scanner.scan(flowRecordWriter().encode(flowRecord({ sourceIPv4Address: Buffer.alloc(4), sourceIPv6Address: null, ...fields })), scanned);
    return t.of(scanned).template.id;
  };
  assert.deepEqual([templateOf({ flowType: 2 }), templateOf({ flowType: null }), templateOf({ sourceIPv4Address: null, sourceIPv6Address: Buffer.alloc(16), flowType: null })], [256, 258, 259]);
});
