// The information elements of Antrea's export templates, in Antrea's order (reference §4.3:
// exporter/ipfix.go prepareElements, infoelements/elements.go). With the defaults (names on, UIDs off)
// Aggregate mode sends 70 elements and Proxy mode 50, in an IPv4 (256) and an IPv6 (257) template.
import type { Mode } from '../../schemas/mode.js';

export interface ElementOptions {
  readonly mode: Mode;
  readonly ipv6: boolean;
  readonly includeK8sNames: boolean;
  readonly includeK8sUIDs: boolean;
}

/** IPv4 template id, IPv6 = 257: an exporting process numbers its templates from 256. */
export const IPV4_TEMPLATE_ID = 256;
export const IPV6_TEMPLATE_ID = 257;
/** The flow templates, for records that are not an Antrea Agent's (flowagg's own; Antrea has none). */
export const FLOW_IPV4_TEMPLATE_ID = 258;
export const FLOW_IPV6_TEMPLATE_ID = 259;

const STATS = ['octetDelta', 'octetTotal', 'packetDelta', 'packetTotal', 'reverseOctetDelta', 'reverseOctetTotal', 'reversePacketDelta', 'reversePacketTotal'];

/** Element names of one template. */
export function templateElements(o: ElementOptions): string[] {
  const N = o.includeK8sNames;
  const U = o.includeK8sUIDs;
  const v = o.ipv6 ? 'IPv6' : 'IPv4';
  const when = (cond: boolean, ...names: string[]) => (cond ? names : []);
  const policy = (dir: 'ingress' | 'egress') => [
    ...when(N, `${dir}NetworkPolicyName`, `${dir}NetworkPolicyNamespace`),
    ...when(U, `${dir}NetworkPolicyUUID`),
    `${dir}NetworkPolicyType`,
    ...when(N || U, `${dir}NetworkPolicyRuleName`),
    `${dir}NetworkPolicyRuleAction`,
  ];
  return [
    'flowStartSeconds', 'flowEndSeconds', 'flowEndReason', 'sourceTransportPort', 'destinationTransportPort', 'protocolIdentifier',
    'packetTotalCount', 'octetTotalCount', 'packetDeltaCount', 'octetDeltaCount', `source${v}Address`, `destination${v}Address`,
    'reversePacketTotalCount', 'reverseOctetTotalCount', 'reversePacketDeltaCount', 'reverseOctetDeltaCount',
    ...when(N, 'sourcePodName', 'sourcePodNamespace'), ...when(U, 'sourcePodUUID'),
    ...when(N, 'sourceNodeName'), ...when(U, 'sourceNodeUUID'),
    ...when(N, 'destinationPodName', 'destinationPodNamespace'), ...when(U, 'destinationPodUUID'),
    ...when(N, 'destinationNodeName'), ...when(U, 'destinationNodeUUID'),
    'destinationServicePort', ...when(N, 'destinationServicePortName'), ...when(U, 'destinationServiceUUID'),
    ...policy('ingress'),
    ...policy('egress'),
    'tcpState', 'flowType',
    ...when(N, 'egressName'), ...when(U, 'egressUUID'), 'egressIP', ...when(N, 'egressNodeName'), ...when(U, 'egressNodeUUID'),
    'proxySnatPort', `proxySnat${v}`, `destinationCluster${v}`, `destinationService${v}`,
    ...when(o.mode === 'Aggregate',
      ...STATS.flatMap((m) => [`${m}CountFromSourceNode`, `${m}CountFromDestinationNode`]),
      'flowEndSecondsFromSourceNode', 'flowEndSecondsFromDestinationNode',
      'throughput', 'throughputFromSourceNode', 'throughputFromDestinationNode',
      'reverseThroughput', 'reverseThroughputFromSourceNode', 'reverseThroughputFromDestinationNode'),
    'sourcePodLabels', 'destinationPodLabels', 'clusterId',
    ...when(o.mode === 'Proxy', 'originalObservationDomainId', 'originalExporterIPv4Address', 'originalExporterIPv6Address', 'flowDirection'),
  ];
}

/**
 * The flow template: for records no Antrea Agent made (a router's or hypervisor's, in IPFIX or NetFlow), the
 * IANA elements a FlowRecord types, so that what the exporter sent reaches the collector (Antrea's templates
 * would keep only its 5-tuple and counters, and times in seconds), with the proxy-mode provenance. IANA and
 * RFC 5103 reverse elements only, so any collector decodes every one.
 */
export function flowTemplateElements(ipv6: boolean): string[] {
  const v = ipv6 ? 'IPv6' : 'IPv4';
  return [
    'flowStartMilliseconds', 'flowEndMilliseconds', 'flowEndReason', 'sourceTransportPort', 'destinationTransportPort', 'protocolIdentifier',
    `source${v}Address`, `destination${v}Address`, 'ipVersion', 'ipClassOfService', 'tcpControlBits', `icmpTypeCode${v}`,
    'ingressInterface', 'egressInterface', 'vlanId', 'postVlanId', `source${v}PrefixLength`, `destination${v}PrefixLength`, `ipNextHop${v}Address`,
    'bgpSourceAsNumber', 'bgpDestinationAsNumber', 'sourceMacAddress', 'destinationMacAddress',
    'packetDeltaCount', 'octetDeltaCount', 'packetTotalCount', 'octetTotalCount',
    'reversePacketDeltaCount', 'reverseOctetDeltaCount', 'reversePacketTotalCount', 'reverseOctetTotalCount', 'reverseTcpControlBits', 'samplingInterval',
    'originalObservationDomainId', 'originalExporterIPv4Address', 'originalExporterIPv6Address', 'flowDirection',
  ];
}
