// Where a flow's state lives in the flow store (store.ts): three typed-array rows per flow slot, one of
// Float64 (times, counters, throughputs, deadlines), one of Int32 (interned string, address and UUID ids,
// ports, the export count) and one of Uint8 (lifecycle, enums, small counters). A flow's row is
// contiguous, so updating a flow touches a few cache lines, not one per column.
//
// The names below are the FlowRecord fields each column holds (schemas/flow-record.avsc), so that the
// record reader, the output writer and the changelog codec all follow these tables.

// ---- Float64 row ----

/** The four counters, each with a total and a delta, in this order. */
export const METRICS = ['octet', 'packet', 'reverseOctet', 'reversePacket'] as const;
export const METRIC_COUNT = 4;
const TOTAL_NAMES = ['octetTotalCount', 'packetTotalCount', 'reverseOctetTotalCount', 'reversePacketTotalCount'] as const;
const DELTA_NAMES = ['octetDeltaCount', 'packetDeltaCount', 'reverseOctetDeltaCount', 'reversePacketDeltaCount'] as const;
/** Forward then reverse throughput. */
const THROUGHPUT_NAMES = ['throughput', 'reverseThroughput'] as const;

export const F_START = 0;
export const F_END = 1;
export const F_TOTAL = 2;
export const F_DELTA = 6;
export const F_THROUGHPUT = 10;
/** The per-Node block of side 0 (source Node) and side 1 (destination Node). */
export const F_SIDE = 12;
export const SIDE_WIDTH = 11;
export const S_TOTAL = 0;
export const S_DELTA = 4;
export const S_THROUGHPUT = 8;
export const S_END = 10;
export const F_ACTIVE = F_SIDE + 2 * SIDE_WIDTH;
export const F_INACTIVE = F_ACTIVE + 1;
/** Creation order in the partition: breaks ties between equal deadlines the same way after a restore. */
export const F_SEQ = F_INACTIVE + 1;
/**
 * The latest flow end each Node reported (source Node's, then destination Node's), for the stale rule: a
 * flow that needs no correlation fills both sides from every record, so its sides' flow ends are not one
 * Node's own.
 */
export const F_NODE_END = F_SEQ + 1;
/**
 * The partition's receive time (ms) until which a half waits for its peer whatever the event time (0: no
 * such wait). Last in the row: a changelog written before it was added reads as 0 (changelog.ts).
 */
export const F_PEER_WAIT = F_NODE_END + 2;
export const F_WIDTH = F_PEER_WAIT + 1;

export const SIDE_SOURCE = 0;
export const SIDE_DESTINATION = 1;
export const SIDE_NAMES = ['FromSourceNode', 'FromDestinationNode'] as const;

export const sideBase = (side: number): number => F_SIDE + side * SIDE_WIDTH;

/** FlowRecord names of the Float64 counters: common ones, then per side. */
export const TOTAL_FIELDS = TOTAL_NAMES;
export const DELTA_FIELDS = DELTA_NAMES;
export const THROUGHPUT_FIELDS = THROUGHPUT_NAMES;
export const sideField = (name: string, side: number): string => `${name}${SIDE_NAMES[side]}`;

// ---- Int32 row ----

/** Text columns: interned UTF-8 strings. */
export const TEXT_FIELDS = [
  'sourcePodName', 'sourcePodNamespace', 'sourceNodeName', 'destinationPodName', 'destinationPodNamespace', 'destinationNodeName',
  'destinationServicePortName', 'ingressNetworkPolicyName', 'ingressNetworkPolicyNamespace', 'ingressNetworkPolicyRuleName',
  'egressNetworkPolicyName', 'egressNetworkPolicyNamespace', 'egressNetworkPolicyRuleName', 'egressName', 'egressIP', 'egressNodeName',
  'tcpState', 'sourcePodLabels', 'destinationPodLabels',
] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

/** Byte columns (interned as latin1): 16-byte UUIDs, and addresses of 4 or 16 bytes whose family the length tells. */
export const UUID_FIELDS = [
  'sourcePodUUID', 'destinationPodUUID', 'sourceNodeUUID', 'destinationNodeUUID', 'destinationServiceUUID',
  'ingressNetworkPolicyUUID', 'egressNetworkPolicyUUID', 'egressUUID', 'egressNodeUUID',
] as const;
/** Address columns by their family-less name; the FlowRecord has an IPv4 and an IPv6 field for each. */
export const ADDRESS_FIELDS = ['destinationClusterIP', 'destinationServiceIP', 'proxySnatIP'] as const;
export const ADDRESS_FAMILY_FIELDS: Readonly<Record<(typeof ADDRESS_FIELDS)[number], readonly [string, string]>> = {
  destinationClusterIP: ['destinationClusterIPv4', 'destinationClusterIPv6'],
  destinationServiceIP: ['destinationServiceIPv4', 'destinationServiceIPv6'],
  proxySnatIP: ['proxySnatIPv4', 'proxySnatIPv6'],
};

const textColumn = (name: TextField): number => TEXT_FIELDS.indexOf(name);
export const I_TEXT = 0;
export const I_SOURCE_POD_NAME = textColumn('sourcePodName');
export const I_SOURCE_POD_NAMESPACE = textColumn('sourcePodNamespace');
export const I_SOURCE_NODE_NAME = textColumn('sourceNodeName');
export const I_DESTINATION_POD_NAME = textColumn('destinationPodName');
export const I_DESTINATION_POD_NAMESPACE = textColumn('destinationPodNamespace');
export const I_DESTINATION_NODE_NAME = textColumn('destinationNodeName');
export const I_SERVICE_PORT_NAME = textColumn('destinationServicePortName');
export const I_EGRESS_NODE_NAME = textColumn('egressNodeName');
export const I_TCP_STATE = textColumn('tcpState');
export const I_SOURCE_LABELS = textColumn('sourcePodLabels');
export const I_DESTINATION_LABELS = textColumn('destinationPodLabels');
export const I_UUID = TEXT_FIELDS.length;
export const uuidColumn = (name: (typeof UUID_FIELDS)[number]): number => I_UUID + UUID_FIELDS.indexOf(name);
export const I_ADDRESS = I_UUID + UUID_FIELDS.length;
export const I_CLUSTER_IP = I_ADDRESS;
export const I_SERVICE_IP = I_ADDRESS + 1;
export const I_SNAT_IP = I_ADDRESS + 2;
/** The flow's source address when it is not the key's (an external client behind a proxy SNAT); 0 = the key's. */
export const I_SOURCE_ADDRESS = I_ADDRESS + 3;
/** Interned columns end here; plain integers follow. */
export const I_INTERNED_END = I_SOURCE_ADDRESS + 1;
export const I_SERVICE_PORT = I_INTERNED_END;
export const I_SNAT_PORT = I_SERVICE_PORT + 1;
/** The flow's source port when it is not the key's; -1 = the key's. */
export const I_SOURCE_PORT = I_SNAT_PORT + 1;
/** Records exported so far; the next output's sequenceNumber. */
export const I_EXPORTS = I_SOURCE_PORT + 1;
export const I_WIDTH = I_EXPORTS + 1;

// ---- Uint8 row ----

export const U_LIFECYCLE = 0;
/** Active expiries spent waiting for the peer. */
export const U_RETRIES = 1;
/** Side of the record that created the flow (SIDE_SOURCE or SIDE_DESTINATION). */
export const U_BASE_SIDE = 2;
export const U_FLOW_END_REASON = 3;
export const U_FLOW_TYPE = 4;
export const U_INGRESS_ACTION = 5;
export const U_EGRESS_ACTION = 6;
export const U_INGRESS_POLICY_TYPE = 7;
export const U_EGRESS_POLICY_TYPE = 8;
/** TimeSource symbol index + 1; 0 when null. */
export const U_START_SOURCE = 9;
export const U_END_SOURCE = 10;
/** DIRTY_* bits: what the next commit writes to the changelog. */
export const U_DIRTY = 11;
export const U_WIDTH = 12;

/** Small integer columns and the FlowRecord field each holds. */
export const SMALL_INT_FIELDS: readonly (readonly [column: number, field: string])[] = [
  [U_FLOW_END_REASON, 'flowEndReason'], [U_FLOW_TYPE, 'flowType'], [U_INGRESS_ACTION, 'ingressNetworkPolicyRuleAction'],
  [U_EGRESS_ACTION, 'egressNetworkPolicyRuleAction'], [U_INGRESS_POLICY_TYPE, 'ingressNetworkPolicyType'], [U_EGRESS_POLICY_TYPE, 'egressNetworkPolicyType'],
];

export const DIRTY_STATS = 1;
export const DIRTY_IDENTITY = 2;
