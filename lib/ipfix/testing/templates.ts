// Test and benchmark support: the templates real exporters send, built from the registry, with
// realistic values. Production code never imports this file.
import { element } from '../registry.js';
import { agentFieldNames } from '../../../simulate/antrea/workload.js';
import type { FieldValue, Template, TemplateField } from '../types.js';

function field(name: string, length?: number, scope = false): TemplateField {
  const ie = element(name);
  return { ie, length: length ?? ie.length, scope };
}

export function makeTemplate(id: number, fields: readonly TemplateField[], observationDomainId = 0, scopeFieldCount = 0): Template {
  return Object.freeze({ id, observationDomainId, fields: Object.freeze([...fields]), scopeFieldCount });
}

/** Antrea agent → FlowAggregator, IPv4 (reference §4.3 "Agent → FA IPFIX template"): 43 elements. */
export const ANTREA_AGENT_FIELDS = agentFieldNames(4);

export function antreaAgentTemplate(id = 256, observationDomainId = 0x5eed): Template {
  return makeTemplate(id, ANTREA_AGENT_FIELDS.map((n) => field(n)), observationDomainId);
}

/**
 * A realistic Antrea agent record: what one Node's agent exports. Sources are its local Pods (200),
 * destinations Pods anywhere in the cluster (1,000); Pod names of about 25 characters; no policy
 * applied, so the policy strings are empty.
 */
export function antreaAgentValues(i: number): FieldValue[] {
  const start = 1_700_000_000 + (i % 3600);
  const src = i % 200;
  const dst = (i * 7) % 1000;
  const v: Record<string, FieldValue> = {
    flowStartSeconds: start, flowEndSeconds: start + 60, flowEndReason: 2, sourceTransportPort: 30000 + (i % 30000),
    destinationTransportPort: 8080, protocolIdentifier: 6, packetTotalCount: 1000 + i, octetTotalCount: 1_500_000 + i * 7,
    packetDeltaCount: 10, octetDeltaCount: 15_000, sourceIPv4Address: `10.10.1.${src + 1}`,
    destinationIPv4Address: `10.10.${2 + (dst >> 8)}.${dst & 255}`, reversePacketTotalCount: 900 + i, reverseOctetTotalCount: 1_200_000,
    reversePacketDeltaCount: 9, reverseOctetDeltaCount: 12_000, sourcePodName: `frontend-7d9f8c6b5-${src.toString(36).padStart(5, 'x')}`,
    sourcePodNamespace: 'production', sourceNodeName: 'k8s-worker-node-01', destinationPodName: `backend-api-5f6d7c8b9-${dst.toString(36).padStart(5, 'x')}`,
    destinationPodNamespace: 'production', destinationNodeName: `k8s-worker-node-${String(dst % 20).padStart(2, '0')}`, destinationServicePort: 8080,
    destinationServicePortName: 'production/backend-api:http', ingressNetworkPolicyName: '', ingressNetworkPolicyNamespace: '',
    ingressNetworkPolicyType: 0, ingressNetworkPolicyRuleName: '', ingressNetworkPolicyRuleAction: 0, egressNetworkPolicyName: '',
    egressNetworkPolicyNamespace: '', egressNetworkPolicyType: 0, egressNetworkPolicyRuleName: '', egressNetworkPolicyRuleAction: 0,
    tcpState: 'ESTABLISHED', flowType: 2, egressName: '', egressIP: '', egressNodeName: '', proxySnatPort: 0,
    destinationClusterIPv4: '10.96.0.15', proxySnatIPv4: '0.0.0.0', destinationServiceIPv4: '10.96.0.15',
  };
  return ANTREA_AGENT_FIELDS.map((n) => v[n]);
}

/** What softflowd 1.1.0 sends with -v 10 for IPv4 flows (template 1024; counters reduced to 4 bytes). */
export function softflowdTemplate(id = 1024, observationDomainId = 0): Template {
  return makeTemplate(id, [
    field('sourceIPv4Address'), field('destinationIPv4Address'), field('flowStartSysUpTime'), field('flowEndSysUpTime'),
    field('octetDeltaCount', 4), field('packetDeltaCount', 4), field('ingressInterface'), field('egressInterface'),
    field('flowDirection'), field('flowEndReason'), field('sourceTransportPort'), field('destinationTransportPort'),
    field('protocolIdentifier'), field('tcpControlBits', 1), field('ipVersion'), field('ipClassOfService'),
  ], observationDomainId);
}

export function softflowdValues(i: number): FieldValue[] {
  return [
    `192.168.${(i >> 8) & 255}.${i & 255}`, '10.0.0.1', 1000 + i, 61000 + i, 1500 * (1 + (i % 50)), 1 + (i % 50), 0, 0,
    0, 2, 1024 + (i % 60000), 443, 6, 0x1b, 4, 0,
  ];
}

export { field as templateField };
