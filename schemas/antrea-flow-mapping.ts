// Which FlowRecord field each Antrea `Flow` leaf fills, and how: the reference's proto ⇄ IPFIX table
// (antrea-grpc.md §2), read in the direction of Antrea's own IPFIX collector, so that a flow sent over gRPC
// gives the FlowRecord the IPFIX path gives for the same flow from an Agent (its 43-element template):
//
// - every field of that template is written, defaults included ("" for an absent name, 0 for a number), and
//   addresses in the flow's family only: IPv4 fields for ip.version 4, IPv6 ones for 6 (by the source's
//   length when the version is unspecified), an empty address being the zero address, as the Agent's IPFIX
//   exporter writes it;
// - integers are truncated to the IPFIX element's width as Antrea's Go conversions do (ports to 16 bits,
//   enums and the protocol to 8, Timestamp seconds to 32); times are whole seconds (Antrea drops nanos),
//   so flowStart/EndMilliseconds are seconds × 1000 with source "seconds";
// - a 64-bit counter beyond 2^53 − 2 leaves its field null and goes to `extras` as the 8 bytes IPFIX would
//   carry, exactly as the IPFIX path keeps it;
// - UIDs (which the Agent's IPFIX template lacks) fill the *UUID fields when they are canonical UUID text,
//   and leave them null otherwise; egress_ip (bytes) becomes egressIP text.
// Not read, because Agents never set them: id, app, flow_direction, aggregation, the Pod labels.
//
// Both the fast transcoder (flow-transcode.ts) and the reference builder (flow-reference.ts) interpret
// this one table.
import type { Leaf } from './antrea-flow-fields.js';

export type Conversion =
  | { readonly kind: 'uint'; readonly bits: 8 | 16 | 32 }
  | { readonly kind: 'uint64'; readonly pen: number; readonly id: number }
  | { readonly kind: 'string' }
  | { readonly kind: 'address'; readonly family: 4 | 6 }
  | { readonly kind: 'addressText' }
  | { readonly kind: 'uuid' }
  | { readonly kind: 'seconds' };

export interface FieldMapping {
  readonly field: string;
  readonly leaf: Leaf;
  readonly conversion: Conversion;
}

const u8 = { kind: 'uint', bits: 8 } as const;
const u16 = { kind: 'uint', bits: 16 } as const;
const str = { kind: 'string' } as const;
const v4 = { kind: 'address', family: 4 } as const;
const v6 = { kind: 'address', family: 6 } as const;
const uuid = { kind: 'uuid' } as const;
const counter = (pen: number, id: number) => ({ kind: 'uint64', pen, id }) as const;
const REVERSE = 29305;

/** FlowRecord element and time fields, with the leaf and conversion that fill them. */
export const FLOW_MAPPING: readonly FieldMapping[] = [
  ['flowStartMilliseconds', 'startSeconds', { kind: 'seconds' }],
  ['flowEndMilliseconds', 'endSeconds', { kind: 'seconds' }],
  ['flowEndReason', 'endReason', u8],
  ['sourceTransportPort', 'sourcePort', u16],
  ['destinationTransportPort', 'destinationPort', u16],
  ['protocolIdentifier', 'protocol', u8],
  ['packetTotalCount', 'packetTotal', counter(0, 86)],
  ['octetTotalCount', 'octetTotal', counter(0, 85)],
  ['packetDeltaCount', 'packetDelta', counter(0, 2)],
  ['octetDeltaCount', 'octetDelta', counter(0, 1)],
  ['sourceIPv4Address', 'source', v4],
  ['destinationIPv4Address', 'destination', v4],
  ['sourceIPv6Address', 'source', v6],
  ['destinationIPv6Address', 'destination', v6],
  ['reversePacketTotalCount', 'reversePacketTotal', counter(REVERSE, 86)],
  ['reverseOctetTotalCount', 'reverseOctetTotal', counter(REVERSE, 85)],
  ['reversePacketDeltaCount', 'reversePacketDelta', counter(REVERSE, 2)],
  ['reverseOctetDeltaCount', 'reverseOctetDelta', counter(REVERSE, 1)],
  ['sourcePodName', 'sourcePodName', str],
  ['sourcePodNamespace', 'sourcePodNamespace', str],
  ['sourceNodeName', 'sourceNodeName', str],
  ['destinationPodName', 'destinationPodName', str],
  ['destinationPodNamespace', 'destinationPodNamespace', str],
  ['destinationNodeName', 'destinationNodeName', str],
  ['destinationServicePort', 'destinationServicePort', u16],
  ['destinationServicePortName', 'destinationServicePortName', str],
  ['ingressNetworkPolicyName', 'ingressPolicyName', str],
  ['ingressNetworkPolicyNamespace', 'ingressPolicyNamespace', str],
  ['ingressNetworkPolicyType', 'ingressPolicyType', u8],
  ['ingressNetworkPolicyRuleName', 'ingressPolicyRuleName', str],
  ['ingressNetworkPolicyRuleAction', 'ingressPolicyRuleAction', u8],
  ['egressNetworkPolicyName', 'egressPolicyName', str],
  ['egressNetworkPolicyNamespace', 'egressPolicyNamespace', str],
  ['egressNetworkPolicyType', 'egressPolicyType', u8],
  ['egressNetworkPolicyRuleName', 'egressPolicyRuleName', str],
  ['egressNetworkPolicyRuleAction', 'egressPolicyRuleAction', u8],
  ['tcpState', 'tcpState', str],
  ['flowType', 'flowType', u8],
  ['egressName', 'egressName', str],
  ['egressIP', 'egressIp', { kind: 'addressText' }],
  ['egressNodeName', 'egressNodeName', str],
  ['proxySnatPort', 'proxySnatPort', u16],
  ['destinationClusterIPv4', 'destinationClusterIp', v4],
  ['destinationClusterIPv6', 'destinationClusterIp', v6],
  ['proxySnatIPv4', 'proxySnatIp', v4],
  ['proxySnatIPv6', 'proxySnatIp', v6],
  ['destinationServiceIPv4', 'destinationServiceIp', v4],
  ['destinationServiceIPv6', 'destinationServiceIp', v6],
  ['sourcePodUUID', 'sourcePodUid', uuid],
  ['destinationPodUUID', 'destinationPodUid', uuid],
  ['sourceNodeUUID', 'sourceNodeUid', uuid],
  ['destinationNodeUUID', 'destinationNodeUid', uuid],
  ['destinationServiceUUID', 'destinationServiceUid', uuid],
  ['ingressNetworkPolicyUUID', 'ingressPolicyUid', uuid],
  ['egressNetworkPolicyUUID', 'egressPolicyUid', uuid],
  ['egressUUID', 'egressUid', uuid],
  ['egressNodeUUID', 'egressNodeUid', uuid],
].map(([field, leaf, conversion]) => ({ field, leaf, conversion }) as FieldMapping);

/** The provenance fields a Flow fills; the others (address, port, transport, template, receive time) come from the stream. */
export const PROVENANCE_LEAVES = { observationDomainId: 'observationDomainId', exportTime: 'exportSeconds', sequenceNumber: 'sequenceNumber' } as const satisfies Record<string, Leaf>;

/** The addresses of a Flow whose length must fit its family. */
export const ADDRESS_LEAVES: readonly Leaf[] = ['source', 'destination', 'destinationClusterIp', 'destinationServiceIp', 'proxySnatIp'];

/** The family of a flow: ip.version, or, when it is unspecified, the source address's length. */
export function flowFamily(ipVersion: number, sourceLength: number, destinationLength: number): 4 | 6 {
  if (ipVersion === 6) return 6;
  if (ipVersion === 4) return 4;
  return sourceLength === 16 || destinationLength === 16 ? 6 : 4;
}

const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The 16 bytes of a canonical UUID text, or undefined. */
export function uuidBytes(text: string): Buffer | undefined {
  return UUID_TEXT.test(text) ? Buffer.from(text.replaceAll('-', ''), 'hex') : undefined;
}
