// The column lists of the three row destinations, each in the order its consumers expect (reference §7.2,
// §7.3, §7.4, §8). Every list names FlowRow fields, so a column cannot be spelled two ways.
import type { FlowRowField } from './flow-row.js';

export type ColumnType = 'DateTime' | 'UInt8' | 'UInt16' | 'UInt64' | 'String';

export interface Column {
  readonly name: FlowRowField;
  readonly type: ColumnType;
}

const col = (name: FlowRowField, type: ColumnType): Column => ({ name, type });

/**
 * The columns Antrea's ClickHouse exporter inserts, in its INSERT's order (51). The `flows` table has two
 * more that the server fills: timeInserted (first, DEFAULT now()) and trusted (after clusterUUID, DEFAULT 0).
 */
export const CLICKHOUSE_COLUMNS: readonly Column[] = [
  col('flowStartSeconds', 'DateTime'),
  col('flowEndSeconds', 'DateTime'),
  col('flowEndSecondsFromSourceNode', 'DateTime'),
  col('flowEndSecondsFromDestinationNode', 'DateTime'),
  col('flowEndReason', 'UInt8'),
  col('sourceIP', 'String'),
  col('destinationIP', 'String'),
  col('sourceTransportPort', 'UInt16'),
  col('destinationTransportPort', 'UInt16'),
  col('protocolIdentifier', 'UInt8'),
  col('packetTotalCount', 'UInt64'),
  col('octetTotalCount', 'UInt64'),
  col('packetDeltaCount', 'UInt64'),
  col('octetDeltaCount', 'UInt64'),
  col('reversePacketTotalCount', 'UInt64'),
  col('reverseOctetTotalCount', 'UInt64'),
  col('reversePacketDeltaCount', 'UInt64'),
  col('reverseOctetDeltaCount', 'UInt64'),
  col('sourcePodName', 'String'),
  col('sourcePodNamespace', 'String'),
  col('sourceNodeName', 'String'),
  col('destinationPodName', 'String'),
  col('destinationPodNamespace', 'String'),
  col('destinationNodeName', 'String'),
  col('destinationClusterIP', 'String'),
  col('destinationServicePort', 'UInt16'),
  col('destinationServicePortName', 'String'),
  col('ingressNetworkPolicyName', 'String'),
  col('ingressNetworkPolicyNamespace', 'String'),
  col('ingressNetworkPolicyRuleName', 'String'),
  col('ingressNetworkPolicyRuleAction', 'UInt8'),
  col('ingressNetworkPolicyType', 'UInt8'),
  col('egressNetworkPolicyName', 'String'),
  col('egressNetworkPolicyNamespace', 'String'),
  col('egressNetworkPolicyRuleName', 'String'),
  col('egressNetworkPolicyRuleAction', 'UInt8'),
  col('egressNetworkPolicyType', 'UInt8'),
  col('tcpState', 'String'),
  col('flowType', 'UInt8'),
  col('sourcePodLabels', 'String'),
  col('destinationPodLabels', 'String'),
  col('throughput', 'UInt64'),
  col('reverseThroughput', 'UInt64'),
  col('throughputFromSourceNode', 'UInt64'),
  col('throughputFromDestinationNode', 'UInt64'),
  col('reverseThroughputFromSourceNode', 'UInt64'),
  col('reverseThroughputFromDestinationNode', 'UInt64'),
  col('clusterUUID', 'String'),
  col('egressName', 'String'),
  col('egressIP', 'String'),
  col('egressNodeName', 'String'),
];

/** The counter columns: what the outage and crash tests sum, and what a reader checks for exactness. */
export const COUNTER_COLUMNS: readonly FlowRowField[] = CLICKHOUSE_COLUMNS.filter((c) => c.type === 'UInt64').map((c) => c.name);

/**
 * One S3 CSV line, as Antrea's current uploader writes it (reference §7.3, checked against fc70f2bb7): the
 * ClickHouse columns with destinationServiceIP after destinationClusterIP, and the time the line was
 * written (`timeInserted`, unix seconds) after clusterUUID. 53 fields. A reader that reads by position
 * counts on every one of them being where Antrea puts it.
 */
export type S3Field = FlowRowField | 'timeInserted';

function s3Fields(): S3Field[] {
  const out: S3Field[] = [];
  for (const { name } of CLICKHOUSE_COLUMNS) {
    out.push(name);
    if (name === 'destinationClusterIP') out.push('destinationServiceIP');
    if (name === 'clusterUUID') out.push('timeInserted');
  }
  return out;
}

export const S3_FIELDS: readonly S3Field[] = s3Fields();

/** The flow log's 30 CSV fields (Antrea's flowlogger), in order. */
export const FLOW_LOG_FIELDS: readonly FlowRowField[] = [
  'flowStartSeconds',
  'flowEndSeconds',
  'sourceIP',
  'destinationIP',
  'sourceTransportPort',
  'destinationTransportPort',
  'protocolIdentifier',
  'sourcePodName',
  'sourcePodNamespace',
  'sourceNodeName',
  'destinationPodName',
  'destinationPodNamespace',
  'destinationNodeName',
  'destinationClusterIP',
  'destinationServiceIP',
  'destinationServicePort',
  'destinationServicePortName',
  'ingressNetworkPolicyName',
  'ingressNetworkPolicyNamespace',
  'ingressNetworkPolicyRuleName',
  'ingressNetworkPolicyRuleAction',
  'ingressNetworkPolicyType',
  'egressNetworkPolicyName',
  'egressNetworkPolicyNamespace',
  'egressNetworkPolicyRuleName',
  'egressNetworkPolicyRuleAction',
  'egressNetworkPolicyType',
  'egressName',
  'egressIP',
  'egressNodeName',
];
