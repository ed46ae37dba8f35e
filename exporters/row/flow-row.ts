// One conversion from a FlowRecord to the Antrea/Theia row, as Antrea's flowrecord.GetFlowRecord makes it
// (reference §7.2, §8), for the three destinations that write rows: ClickHouse (columns.ts lists its
// table), the S3 uploader's CSV and the flow log's 30 columns. Antrea's value conventions: absent numbers
// are 0, absent strings and addresses "" (Antrea prints an unset address as ""), times are whole seconds.
//
// Counters are unsigned64. A FlowRecord keeps values beyond 2^53 out of its typed field (they cannot be
// a JS number) and in `extras` with the exporter's bytes; the row reads them back from there as bigint,
// so no counter is ever truncated or lost.
import { formatIpv4, formatIpv6 } from '../../lib/ipfix/text.js';
import { FLOW_RECORD_FIELDS, type FlowRecord } from '../../schemas/flow-record.js';
import type { ScannedRecord } from '../../schemas/flow-record-scanner.js';

/** An unsigned64 value: a number up to 2^53, a bigint beyond. */
export type Counter = number | bigint;

export interface FlowRow {
  flowStartSeconds: number;
  flowEndSeconds: number;
  flowEndSecondsFromSourceNode: number;
  flowEndSecondsFromDestinationNode: number;
  flowEndReason: number;
  sourceIP: string;
  destinationIP: string;
  sourceTransportPort: number;
  destinationTransportPort: number;
  protocolIdentifier: number;
  packetTotalCount: Counter;
  octetTotalCount: Counter;
  packetDeltaCount: Counter;
  octetDeltaCount: Counter;
  reversePacketTotalCount: Counter;
  reverseOctetTotalCount: Counter;
  reversePacketDeltaCount: Counter;
  reverseOctetDeltaCount: Counter;
  sourcePodName: string;
  sourcePodNamespace: string;
  sourceNodeName: string;
  destinationPodName: string;
  destinationPodNamespace: string;
  destinationNodeName: string;
  destinationClusterIP: string;
  destinationServicePort: number;
  destinationServicePortName: string;
  ingressNetworkPolicyName: string;
  ingressNetworkPolicyNamespace: string;
  ingressNetworkPolicyRuleName: string;
  ingressNetworkPolicyRuleAction: number;
  ingressNetworkPolicyType: number;
  egressNetworkPolicyName: string;
  egressNetworkPolicyNamespace: string;
  egressNetworkPolicyRuleName: string;
  egressNetworkPolicyRuleAction: number;
  egressNetworkPolicyType: number;
  tcpState: string;
  flowType: number;
  sourcePodLabels: string;
  destinationPodLabels: string;
  throughput: Counter;
  reverseThroughput: Counter;
  throughputFromSourceNode: Counter;
  throughputFromDestinationNode: Counter;
  reverseThroughputFromSourceNode: Counter;
  reverseThroughputFromDestinationNode: Counter;
  /** Antrea writes the cluster UUID here, never the custom clusterID of the IPFIX exporter. */
  clusterUUID: string;
  egressName: string;
  egressIP: string;
  egressNodeName: string;
  /** Not a ClickHouse column: the flow log prints it (reference §7.4). */
  destinationServiceIP: string;
}

export type FlowRowField = keyof FlowRow;

/** The record fields that hold unsigned64 counters, with the element each is, to find overflowed values in extras. */
export const COUNTER_ELEMENTS: ReadonlyMap<string, { readonly pen: number; readonly id: number }> = new Map(
  FLOW_RECORD_FIELDS.flatMap((f) => (f.kind === 'element' && f.ie.type === 'unsigned64' ? [[f.name, { pen: f.ie.pen, id: f.ie.id }] as const] : [])),
);

// The helpers take the value read at the call site: a property load with a constant name stays
// monomorphic there, where a load of r[name] inside one shared helper would not.

/** An unsigned64 field's value; when the typed field is null, the value beyond 2^53 kept in extras. */
function counter(v: unknown, r: FlowRecord, name: string): Counter {
  if (typeof v === 'number') return v;
  const ie = COUNTER_ELEMENTS.get(name);
  if (ie === undefined) return 0;
  for (const x of r.extras) {
    if (x.pen === ie.pen && x.id === ie.id && x.value.length > 0 && x.value.length <= 8) {
      let n = 0n;
      for (const byte of x.value) n = (n << 8n) | BigInt(byte);
      return n;
    }
  }
  return 0;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function isZero(b: Buffer): boolean {
  for (const x of b) if (x !== 0) return false;
  return true;
}

/**
 * The text of an address field, IPv4 first. An unspecified address (0.0.0.0, ::) is "" for the optional
 * ones (Service and ClusterIP): Antrea's agents send zeros when a flow has no Service, and its rows
 * carry "" then.
 */
function address(v4: unknown, v6: unknown, zeroIsUnset: boolean): string {
  if (v4 instanceof Buffer && v4.length === 4 && !(zeroIsUnset && isZero(v4))) return formatIpv4(v4, 0);
  if (v6 instanceof Buffer && v6.length === 16 && !(zeroIsUnset && isZero(v6))) return formatIpv6(v6, 0);
  return '';
}

const seconds = (ms: number | null): number => (ms === null ? 0 : Math.floor(ms / 1000));

/**
 * For the writers that make a row's columns straight from a scanned record (the flow log's CSV, the
 * ClickHouse rows): the record fields each address column and each whole-seconds column comes from, as
 * toFlowRow reads them ([IPv4 field, IPv6 field, whether an unspecified address is ""]).
 */
export const ROW_ADDRESSES: Partial<Record<FlowRowField, readonly [string, string, boolean]>> = {
  sourceIP: ['sourceIPv4Address', 'sourceIPv6Address', false],
  destinationIP: ['destinationIPv4Address', 'destinationIPv6Address', false],
  destinationClusterIP: ['destinationClusterIPv4', 'destinationClusterIPv6', true],
  destinationServiceIP: ['destinationServiceIPv4', 'destinationServiceIPv6', true],
};
export const ROW_SECONDS: Partial<Record<FlowRowField, string>> = { flowStartSeconds: 'flowStartMilliseconds', flowEndSeconds: 'flowEndMilliseconds' };

function zeroAt(s: Buffer, start: number, length: number): boolean {
  for (let k = start; k < start + length; k++) if (s[k] !== 0) return false;
  return true;
}

/** Which of a scanned record's address fields toFlowRow's address() prints: `v4`, `v6`, or -1 for "". */
export function rowAddressField(r: ScannedRecord, v4: number, v6: number, zeroIsUnset: boolean): number {
  const a = r.start[v4]!;
  if (a >= 0 && !(zeroIsUnset && zeroAt(r.buf, a, 4))) return v4;
  const b = r.start[v6]!;
  if (b >= 0 && !(zeroIsUnset && zeroAt(r.buf, b, 16))) return v6;
  return -1;
}

export function toFlowRow(r: FlowRecord, clusterUUID: string): FlowRow {
  return {
    flowStartSeconds: seconds(r.flowStartMilliseconds),
    flowEndSeconds: seconds(r.flowEndMilliseconds),
    flowEndSecondsFromSourceNode: num(r.flowEndSecondsFromSourceNode),
    flowEndSecondsFromDestinationNode: num(r.flowEndSecondsFromDestinationNode),
    flowEndReason: num(r.flowEndReason),
    sourceIP: address(r.sourceIPv4Address, r.sourceIPv6Address, false),
    destinationIP: address(r.destinationIPv4Address, r.destinationIPv6Address, false),
    sourceTransportPort: r.sourceTransportPort ?? 0,
    destinationTransportPort: r.destinationTransportPort ?? 0,
    protocolIdentifier: r.protocolIdentifier ?? 0,
    packetTotalCount: counter(r.packetTotalCount, r, 'packetTotalCount'),
    octetTotalCount: counter(r.octetTotalCount, r, 'octetTotalCount'),
    packetDeltaCount: counter(r.packetDeltaCount, r, 'packetDeltaCount'),
    octetDeltaCount: counter(r.octetDeltaCount, r, 'octetDeltaCount'),
    reversePacketTotalCount: counter(r.reversePacketTotalCount, r, 'reversePacketTotalCount'),
    reverseOctetTotalCount: counter(r.reverseOctetTotalCount, r, 'reverseOctetTotalCount'),
    reversePacketDeltaCount: counter(r.reversePacketDeltaCount, r, 'reversePacketDeltaCount'),
    reverseOctetDeltaCount: counter(r.reverseOctetDeltaCount, r, 'reverseOctetDeltaCount'),
    sourcePodName: str(r.sourcePodName),
    sourcePodNamespace: str(r.sourcePodNamespace),
    sourceNodeName: str(r.sourceNodeName),
    destinationPodName: r.destinationPodName ?? '',
    destinationPodNamespace: str(r.destinationPodNamespace),
    destinationNodeName: str(r.destinationNodeName),
    destinationClusterIP: address(r.destinationClusterIPv4, r.destinationClusterIPv6, true),
    destinationServicePort: num(r.destinationServicePort),
    destinationServicePortName: str(r.destinationServicePortName),
    ingressNetworkPolicyName: str(r.ingressNetworkPolicyName),
    ingressNetworkPolicyNamespace: str(r.ingressNetworkPolicyNamespace),
    ingressNetworkPolicyRuleName: str(r.ingressNetworkPolicyRuleName),
    ingressNetworkPolicyRuleAction: num(r.ingressNetworkPolicyRuleAction),
    ingressNetworkPolicyType: num(r.ingressNetworkPolicyType),
    egressNetworkPolicyName: str(r.egressNetworkPolicyName),
    egressNetworkPolicyNamespace: str(r.egressNetworkPolicyNamespace),
    egressNetworkPolicyRuleName: str(r.egressNetworkPolicyRuleName),
    egressNetworkPolicyRuleAction: num(r.egressNetworkPolicyRuleAction),
    egressNetworkPolicyType: num(r.egressNetworkPolicyType),
    tcpState: str(r.tcpState),
    flowType: r.flowType ?? 0,
    sourcePodLabels: str(r.sourcePodLabels),
    destinationPodLabels: str(r.destinationPodLabels),
    throughput: counter(r.throughput, r, 'throughput'),
    reverseThroughput: counter(r.reverseThroughput, r, 'reverseThroughput'),
    throughputFromSourceNode: counter(r.throughputFromSourceNode, r, 'throughputFromSourceNode'),
    throughputFromDestinationNode: counter(r.throughputFromDestinationNode, r, 'throughputFromDestinationNode'),
    reverseThroughputFromSourceNode: counter(r.reverseThroughputFromSourceNode, r, 'reverseThroughputFromSourceNode'),
    reverseThroughputFromDestinationNode: counter(r.reverseThroughputFromDestinationNode, r, 'reverseThroughputFromDestinationNode'),
    clusterUUID,
    egressName: str(r.egressName),
    egressIP: str(r.egressIP),
    egressNodeName: str(r.egressNodeName),
    destinationServiceIP: address(r.destinationServiceIPv4, r.destinationServiceIPv6, true),
  };
}
