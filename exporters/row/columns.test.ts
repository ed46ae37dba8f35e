// Column compatibility with the reference (antrea-flowaggregator.md §7.2, §7.3, §7.4, §8), element by
// element. The expected lists are written out here from the reference, not derived from columns.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLICKHOUSE_COLUMNS, COUNTER_COLUMNS, FLOW_LOG_FIELDS, S3_FIELDS } from './columns.js';

/** Antrea's INSERT INTO flows (clickhouseclient.go), 51 columns, with §8's type of each. */
const REFERENCE_INSERT: readonly (readonly [string, string])[] = [
  ['flowStartSeconds', 'DateTime'], ['flowEndSeconds', 'DateTime'], ['flowEndSecondsFromSourceNode', 'DateTime'],
  ['flowEndSecondsFromDestinationNode', 'DateTime'], ['flowEndReason', 'UInt8'], ['sourceIP', 'String'], ['destinationIP', 'String'],
  ['sourceTransportPort', 'UInt16'], ['destinationTransportPort', 'UInt16'], ['protocolIdentifier', 'UInt8'],
  ['packetTotalCount', 'UInt64'], ['octetTotalCount', 'UInt64'], ['packetDeltaCount', 'UInt64'], ['octetDeltaCount', 'UInt64'],
  ['reversePacketTotalCount', 'UInt64'], ['reverseOctetTotalCount', 'UInt64'], ['reversePacketDeltaCount', 'UInt64'],
  ['reverseOctetDeltaCount', 'UInt64'], ['sourcePodName', 'String'], ['sourcePodNamespace', 'String'], ['sourceNodeName', 'String'],
  ['destinationPodName', 'String'], ['destinationPodNamespace', 'String'], ['destinationNodeName', 'String'],
  ['destinationClusterIP', 'String'], ['destinationServicePort', 'UInt16'], ['destinationServicePortName', 'String'],
  ['ingressNetworkPolicyName', 'String'], ['ingressNetworkPolicyNamespace', 'String'], ['ingressNetworkPolicyRuleName', 'String'],
  ['ingressNetworkPolicyRuleAction', 'UInt8'], ['ingressNetworkPolicyType', 'UInt8'], ['egressNetworkPolicyName', 'String'],
  ['egressNetworkPolicyNamespace', 'String'], ['egressNetworkPolicyRuleName', 'String'], ['egressNetworkPolicyRuleAction', 'UInt8'],
  ['egressNetworkPolicyType', 'UInt8'], ['tcpState', 'String'], ['flowType', 'UInt8'], ['sourcePodLabels', 'String'],
  ['destinationPodLabels', 'String'], ['throughput', 'UInt64'], ['reverseThroughput', 'UInt64'], ['throughputFromSourceNode', 'UInt64'],
  ['throughputFromDestinationNode', 'UInt64'], ['reverseThroughputFromSourceNode', 'UInt64'],
  ['reverseThroughputFromDestinationNode', 'UInt64'], ['clusterUUID', 'String'], ['egressName', 'String'], ['egressIP', 'String'],
  ['egressNodeName', 'String'],
];

/** §7.4: the flow logger's fields, in order. */
const REFERENCE_FLOW_LOG = [
  'flowStartSeconds', 'flowEndSeconds', 'sourceIP', 'destinationIP', 'sourceTransportPort', 'destinationTransportPort',
  'protocolIdentifier', 'sourcePodName', 'sourcePodNamespace', 'sourceNodeName', 'destinationPodName', 'destinationPodNamespace',
  'destinationNodeName', 'destinationClusterIP', 'destinationServiceIP', 'destinationServicePort', 'destinationServicePortName',
  'ingressNetworkPolicyName', 'ingressNetworkPolicyNamespace', 'ingressNetworkPolicyRuleName', 'ingressNetworkPolicyRuleAction',
  'ingressNetworkPolicyType', 'egressNetworkPolicyName', 'egressNetworkPolicyNamespace', 'egressNetworkPolicyRuleName',
  'egressNetworkPolicyRuleAction', 'egressNetworkPolicyType', 'egressName', 'egressIP', 'egressNodeName',
];

describe('row columns', () => {
  it('ClickHouse: the 51 columns of Antrea\'s INSERT, in order, with the types of the reference schema', () => {
    assert.equal(CLICKHOUSE_COLUMNS.length, REFERENCE_INSERT.length);
    REFERENCE_INSERT.forEach(([name, type], i) => {
      assert.equal(CLICKHOUSE_COLUMNS[i]!.name, name, `column ${i}`);
      assert.equal(CLICKHOUSE_COLUMNS[i]!.type, type, `type of ${name}`);
    });
  });

  it('counters: every UInt64 column (8 counters, 6 throughputs)', () => {
    assert.equal(COUNTER_COLUMNS.length, 14);
  });

  it('S3: Antrea\'s 53 fields by position: destinationServiceIP after destinationClusterIP, the insertion time after clusterUUID', () => {
    const names = REFERENCE_INSERT.map(([n]) => n);
    const expected = [...names.slice(0, 25), 'destinationServiceIP', ...names.slice(25, 48), 'timeInserted', ...names.slice(48)];
    assert.equal(S3_FIELDS.length, 53);
    expected.forEach((name, i) => assert.equal(S3_FIELDS[i], name, `field ${i}`));
    assert.deepEqual([S3_FIELDS[24], S3_FIELDS[25], S3_FIELDS[26]], ['destinationClusterIP', 'destinationServiceIP', 'destinationServicePort']);
    assert.deepEqual(S3_FIELDS.slice(48), ['clusterUUID', 'timeInserted', 'egressName', 'egressIP', 'egressNodeName']);
  });

  it('flow log: the 30 fields of §7.4, in order', () => {
    assert.equal(FLOW_LOG_FIELDS.length, 30);
    REFERENCE_FLOW_LOG.forEach((name, i) => assert.equal(FLOW_LOG_FIELDS[i], name, `field ${i}`));
  });
});
