// The flow log's CSV line: Antrea's 30 fields (reference §7.4) with its prettyPrint names. Antrea joins
// the fields with commas as they are; flowagg quotes a field the RFC 4180 way when it holds a comma, a
// quote or a line break, because the strings come from exporters and one with a newline would otherwise
// forge a line. Kubernetes names never need it, so the lines Antrea would write are unchanged.
import { type FlowRow } from '../row/flow-row.js';

const PROTOCOLS: Readonly<Record<number, string>> = { 1: 'ICMP', 2: 'IGMP', 6: 'TCP', 17: 'UDP', 58: 'IPv6-ICMP', 132: 'SCTP' };
const RULE_ACTIONS = ['', 'Allow', 'Drop', 'Reject'];
const POLICY_TYPES = ['', 'K8sNetworkPolicy', 'AntreaNetworkPolicy', 'AntreaClusterNetworkPolicy', 'K8sClusterNetworkPolicy'];

export const prettyProtocol = (n: number): string => PROTOCOLS[n] ?? 'Unknown Protocol';
export const prettyRuleAction = (n: number): string => RULE_ACTIONS[n] ?? 'Invalid';
export const prettyPolicyType = (n: number): string => POLICY_TYPES[n] ?? 'Invalid';

/** RFC 4180 quoting, only when the field holds a comma, a quote or a line break. */
export function csvField(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 44 || c === 34 || c === 10 || c === 13) return `"${s.replaceAll('"', '""')}"`;
  }
  return s;
}

const q = csvField;

/**
 * The line of a row, newline included. Written out field by field rather than looped over
 * FLOW_LOG_FIELDS: a property read per name at its own site is what makes 300,000 lines a second
 * possible. csv.test.ts checks that the order is FLOW_LOG_FIELDS'.
 */
function line(r: FlowRow, pretty: boolean): string {
  const protocol = pretty ? prettyProtocol(r.protocolIdentifier) : r.protocolIdentifier;
  const ia = pretty ? prettyRuleAction(r.ingressNetworkPolicyRuleAction) : r.ingressNetworkPolicyRuleAction;
  const it = pretty ? prettyPolicyType(r.ingressNetworkPolicyType) : r.ingressNetworkPolicyType;
  const ea = pretty ? prettyRuleAction(r.egressNetworkPolicyRuleAction) : r.egressNetworkPolicyRuleAction;
  const et = pretty ? prettyPolicyType(r.egressNetworkPolicyType) : r.egressNetworkPolicyType;
  return (
    `${r.flowStartSeconds},${r.flowEndSeconds},${q(r.sourceIP)},${q(r.destinationIP)},${r.sourceTransportPort},${r.destinationTransportPort},${protocol},` +
    `${q(r.sourcePodName)},${q(r.sourcePodNamespace)},${q(r.sourceNodeName)},${q(r.destinationPodName)},${q(r.destinationPodNamespace)},${q(r.destinationNodeName)},` +
    `${q(r.destinationClusterIP)},${q(r.destinationServiceIP)},${r.destinationServicePort},${q(r.destinationServicePortName)},` +
    `${q(r.ingressNetworkPolicyName)},${q(r.ingressNetworkPolicyNamespace)},${q(r.ingressNetworkPolicyRuleName)},${ia},${it},` +
    `${q(r.egressNetworkPolicyName)},${q(r.egressNetworkPolicyNamespace)},${q(r.egressNetworkPolicyRuleName)},${ea},${et},` +
    `${q(r.egressName)},${q(r.egressIP)},${q(r.egressNodeName)}\n`
  );
}

/** A function from a row to its line, newline included. */
export function csvLineFormatter(prettyPrint: boolean): (row: FlowRow) => string {
  return (row) => line(row, prettyPrint);
}
