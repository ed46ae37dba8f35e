// The flow search's filters, from its query parameters (docs/explorer.md), compiled once per query into
// one predicate over a record and its facts. Every given filter must hold (AND); a filter on an end
// (namespace, pod, label, ip, port, node) holds when either end matches; src and dst name one end.
import type { FlowRecord } from '../../schemas/flow-record.js';
import { inPrefix, parsePrefix, type Prefix } from '../flowstream/filter.js';
import { matchesSelector, parseSelector } from '../flowstream/label-selector.js';
import type { Endpoint, FlowFacts } from './flow-facts.js';
import { QueryError } from './query-params.js';

export const FLOW_TYPES: Record<string, number> = { intraNode: 1, interNode: 2, toExternal: 3, fromExternal: 4 };
export const PROTOCOLS: Record<string, number> = { icmp: 1, tcp: 6, udp: 17, ipv6icmp: 58, sctp: 132 };
export const SEARCH_FILTERS = ['src', 'dst', 'namespace', 'pod', 'label', 'ip', 'port', 'protocol', 'policy', 'node', 'flowType', 'service', 'denied'] as const;

export type FlowPredicate = (r: FlowRecord, f: FlowFacts) => boolean;

const str = (v: unknown) => (typeof v === 'string' ? v : '');

function labels(json: unknown): Record<string, string> {
  if (typeof json !== 'string' || json === '') return {};
  try {
    const parsed = JSON.parse(json) as unknown;
    return typeof parsed === 'object' && parsed !== null ? Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)])) : {};
  } catch {
    return {};
  }
}

function numberOrName(name: string, text: string, names: Record<string, number>, max: number): number {
  const n = /^\d+$/.test(text) ? Number(text) : names[text];
  if (n === undefined || n > max) throw new QueryError(`${name}: "${text}" is not ${Object.keys(names).join(', ')} or a number up to ${max}`);
  return n;
}

/**
 * An end as the graph names it: `namespace`, `namespace/workload` (or `namespace/pod`), or
 * `namespace/workload/pod`; an address outside the cluster is `external/ADDRESS`.
 */
function endpointMatcher(text: string): (e: Endpoint) => boolean {
  const [ns, middle, pod] = text.split('/');
  if (middle === undefined) return (e) => e.namespace === ns;
  if (pod === undefined) return (e) => e.namespace === ns && (e.workload === middle || e.pod === middle);
  return (e) => e.namespace === ns && e.workload === middle && e.pod === pod;
}

/** A Pod as `name` or `namespace/name`. */
function podMatcher(text: string): (namespace: string, pod: string) => boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return (_ns, pod) => pod === text;
  const ns = text.slice(0, slash);
  const name = text.slice(slash + 1);
  return (namespace, pod) => namespace === ns && pod === name;
}

function compileOne(name: (typeof SEARCH_FILTERS)[number], text: string): FlowPredicate {
  switch (name) {
    case 'src': {
      const is = endpointMatcher(text);
      return (_r, f) => is(f.source);
    }
    case 'dst': {
      const is = endpointMatcher(text);
      return (_r, f) => is(f.destination);
    }
    case 'namespace':
      return (_r, f) => f.source.namespace === text || f.destination.namespace === text;
    case 'pod': {
      const is = podMatcher(text);
      return (_r, f) => is(f.source.namespace, f.source.pod) || is(f.destination.namespace, f.destination.pod);
    }
    case 'label': {
      const parsed = parseSelector(text);
      if ('error' in parsed) throw new QueryError(`label: ${parsed.error}`);
      return (r) => matchesSelector(parsed.selector, labels(r.sourcePodLabels)) || matchesSelector(parsed.selector, labels(r.destinationPodLabels));
    }
    case 'ip': {
      const prefix: Prefix | string = parsePrefix(text);
      if (typeof prefix === 'string') throw new QueryError(`ip: ${prefix}`);
      return (r) => inPrefix(prefix, r.sourceIPv4Address ?? r.sourceIPv6Address ?? undefined) || inPrefix(prefix, r.destinationIPv4Address ?? r.destinationIPv6Address ?? undefined);
    }
    case 'port': {
      const port = numberOrName('port', text, {}, 65535);
      return (r) => r.sourceTransportPort === port || r.destinationTransportPort === port;
    }
    case 'protocol': {
      const protocol = numberOrName('protocol', text.toLowerCase(), PROTOCOLS, 255);
      return (r) => r.protocolIdentifier === protocol;
    }
    case 'policy':
      // The name alone, or namespace/name, of the ingress or egress policy, denied or allowed.
      return (r) => [['ingress', r.ingressNetworkPolicyNamespace, r.ingressNetworkPolicyName], ['egress', r.egressNetworkPolicyNamespace, r.egressNetworkPolicyName]].some(([, ns, n]) => str(n) !== '' && (str(n) === text || `${str(ns)}/${str(n)}` === text));
    case 'node':
      return (r) => str(r.sourceNodeName) === text || str(r.destinationNodeName) === text;
    case 'flowType': {
      const type = numberOrName('flowType', text, FLOW_TYPES, 255);
      return (r) => r.flowType === type;
    }
    case 'service':
      return (_r, f) => f.service === text || f.service.startsWith(`${text}:`);
    case 'denied':
      if (text !== 'true' && text !== 'false') throw new QueryError(`denied: "${text}" is not true or false`);
      return (_r, f) => (f.denial !== undefined) === (text === 'true');
  }
}

/** The predicate of a search's filters; a filter that cannot be used is a QueryError naming it. */
export function searchPredicate(url: URL): FlowPredicate {
  const checks = SEARCH_FILTERS.flatMap((name) => {
    const text = url.searchParams.get(name);
    return text === null || text === '' ? [] : [compileOne(name, text.trim())];
  });
  return (r, f) => checks.every((c) => c(r, f));
}
