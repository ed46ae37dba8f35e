// The flow log's CSV line: Antrea's 30 fields (reference §7.4) with its prettyPrint names. Antrea joins
// the fields with commas as they are; flowagg quotes a field the RFC 4180 way when it holds a comma, a
// quote or a line break, because the strings come from exporters and one with a newline would otherwise
// forge a line. Kubernetes names never need it, so the lines Antrea would write are unchanged.
import { FLOW_LOG_FIELDS } from '../row/columns.js';
import { type FlowRow } from '../row/flow-row.js';

const PROTOCOLS: Readonly<Record<number, string>> = { 1: 'ICMP', 2: 'IGMP', 6: 'TCP', 17: 'UDP', 58: 'IPv6-ICMP', 132: 'SCTP' };
const RULE_ACTIONS = ['', 'Allow', 'Drop', 'Reject'];
const POLICY_TYPES = ['', 'K8sNetworkPolicy', 'AntreaNetworkPolicy', 'AntreaClusterNetworkPolicy', 'K8sClusterNetworkPolicy'];

export const prettyProtocol = (n: number): string => PROTOCOLS[n] ?? 'Unknown Protocol';
export const prettyRuleAction = (n: number): string => RULE_ACTIONS[n] ?? 'Invalid';
export const prettyPolicyType = (n: number): string => POLICY_TYPES[n] ?? 'Invalid';

const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(s: string): string {
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

type Formatter = (row: FlowRow) => string;

function fieldFormatter(name: (typeof FLOW_LOG_FIELDS)[number], pretty: boolean): Formatter {
  if (pretty && name === 'protocolIdentifier') return (r) => prettyProtocol(r.protocolIdentifier);
  if (pretty && name.endsWith('RuleAction')) return (r) => prettyRuleAction(r[name] as number);
  if (pretty && name.endsWith('PolicyType')) return (r) => prettyPolicyType(r[name] as number);
  return (r) => {
    const v = r[name];
    return typeof v === 'string' ? csvField(v) : String(v);
  };
}

/** A function from a row to its line, newline included; the field plan is built once. */
export function csvLineFormatter(prettyPrint: boolean): (row: FlowRow) => string {
  const fields = FLOW_LOG_FIELDS.map((name) => fieldFormatter(name, prettyPrint));
  const n = fields.length;
  return (row) => {
    let line = fields[0]!(row);
    for (let i = 1; i < n; i++) line += ',' + fields[i]!(row);
    return line + '\n';
  };
}
