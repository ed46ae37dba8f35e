// GetFlows filters (antrea-grpc.md §5.3), compiled once per call. Across filters: AND; inside a filter every
// set field must match (AND) and any value of a repeated field may (OR); unset fields are ignored. `direction`
// picks the side namespaces, pod_names, pod_label_selector and ips are checked against: BOTH (either side),
// FROM (source), TO (destination). service_names always checks the destination Service (so FROM is refused).
// A flow with no k8s fails every Kubernetes filter, one with no ip fails an ips filter.
import { isIP } from 'node:net';
import { parseIpv4Into, parseIpv6Into } from '../../lib/ipfix/text.js';
import { matchesSelector, parseSelector, type Selector } from './label-selector.js';

/** A Flow as protobufjs's object form (field names as in the .proto), what the stream sends. */
export type FlowObject = Record<string, unknown>;

export interface FlowFilterInput {
  readonly namespaces?: readonly string[];
  readonly pod_names?: readonly string[];
  readonly pod_label_selector?: string;
  readonly service_names?: readonly string[];
  readonly flow_types?: readonly number[];
  readonly ips?: readonly string[];
  readonly direction?: number;
}

const BOTH = 0;
const FROM = 1;
const TO = 2;

export interface Prefix {
  readonly bytes: Uint8Array;
  readonly bits: number;
}

/** An address or CIDR (`10.0.0.0/8`, `fd00::/16`), or what is wrong with it. */
export function parsePrefix(text: string): Prefix | string {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const family = isIP(address);
  if (family === 0) return `invalid IP "${text}"`;
  const bytes = new Uint8Array(family === 4 ? 4 : 16);
  if (!(family === 4 ? parseIpv4Into(address, bytes, 0) : parseIpv6Into(address, bytes, 0))) return `invalid IP "${text}"`;
  const bits = slash < 0 ? bytes.length * 8 : Number(text.slice(slash + 1));
  if (!/^\d+$/.test(text.slice(slash + 1)) && slash >= 0) return `invalid CIDR "${text}"`;
  if (!Number.isInteger(bits) || bits < 0 || bits > bytes.length * 8) return `invalid CIDR "${text}"`;
  return { bytes, bits };
}

/** A 4-byte address is IPv4 and a 16-byte one IPv6: an IPv4-mapped IPv6 address does not equal its IPv4 form. */
export function inPrefix(p: Prefix, address: Uint8Array | undefined): boolean {
  if (address === undefined || address.length !== p.bytes.length) return false;
  const whole = p.bits >> 3;
  for (let i = 0; i < whole; i++) if (address[i] !== p.bytes[i]) return false;
  const rest = p.bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (address[whole]! & mask) === (p.bytes[whole]! & mask);
}

/** The Service name of "<namespace>/<name>:<port>": after the first "/", up to the first ":" after it. */
export function serviceName(portName: string): string {
  const slash = portName.indexOf('/');
  if (slash < 0) return '';
  const rest = portName.slice(slash + 1);
  const colon = rest.indexOf(':');
  return colon < 0 ? rest : rest.slice(0, colon);
}

type Predicate = (flow: FlowObject) => boolean;

const k8sOf = (f: FlowObject) => f.k8s as Record<string, unknown> | undefined;
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const labelsOf = (v: unknown) => (v as { labels?: Record<string, string> } | undefined)?.labels ?? {};

/** Checks a side-aware condition on the sides `direction` selects. */
function sided(direction: number, source: Predicate, destination: Predicate): Predicate {
  if (direction === FROM) return source;
  if (direction === TO) return destination;
  return (f) => source(f) || destination(f);
}

function compileOne(filter: FlowFilterInput): Predicate | string {
  const direction = filter.direction ?? BOTH;
  if (direction !== BOTH && direction !== FROM && direction !== TO) return `unknown direction ${direction}`;
  const checks: Predicate[] = [];
  const namespaces = new Set(filter.namespaces ?? []);
  if (namespaces.size > 0) {
    checks.push(sided(direction, (f) => k8sOf(f) !== undefined && namespaces.has(str(k8sOf(f)!.source_pod_namespace)), (f) => k8sOf(f) !== undefined && namespaces.has(str(k8sOf(f)!.destination_pod_namespace))));
  }
  const pods = new Set(filter.pod_names ?? []);
  if (pods.size > 0) {
    checks.push(sided(direction, (f) => k8sOf(f) !== undefined && pods.has(str(k8sOf(f)!.source_pod_name)), (f) => k8sOf(f) !== undefined && pods.has(str(k8sOf(f)!.destination_pod_name))));
  }
  if ((filter.pod_label_selector ?? '') !== '') {
    const parsed = parseSelector(filter.pod_label_selector!);
    if ('error' in parsed) return parsed.error;
    const selector: Selector = parsed.selector;
    checks.push(sided(
      direction,
      (f) => k8sOf(f) !== undefined && matchesSelector(selector, labelsOf(k8sOf(f)!.source_pod_labels)),
      (f) => k8sOf(f) !== undefined && matchesSelector(selector, labelsOf(k8sOf(f)!.destination_pod_labels)),
    ));
  }
  const services = new Set(filter.service_names ?? []);
  if (services.size > 0) {
    if (direction === FROM) return 'service_names cannot be used with direction FROM';
    checks.push((f) => k8sOf(f) !== undefined && services.has(serviceName(str(k8sOf(f)!.destination_service_port_name))));
  }
  const types = new Set(filter.flow_types ?? []);
  if (types.size > 0) checks.push((f) => k8sOf(f) !== undefined && types.has(Number(k8sOf(f)!.flow_type ?? 0)));
  if ((filter.ips ?? []).length > 0) {
    const prefixes: Prefix[] = [];
    for (const text of filter.ips!) {
      const p = parsePrefix(text);
      if (typeof p === 'string') return p;
      prefixes.push(p);
    }
    const ip = (f: FlowObject) => f.ip as { source?: Uint8Array; destination?: Uint8Array } | undefined;
    checks.push(sided(direction, (f) => prefixes.some((p) => inPrefix(p, ip(f)?.source)), (f) => prefixes.some((p) => inPrefix(p, ip(f)?.destination))));
  }
  return (f) => checks.every((c) => c(f));
}

/** One predicate for a call's filters, or the error to answer with INVALID_ARGUMENT. */
export function compileFilters(filters: readonly FlowFilterInput[]): { matches: Predicate } | { error: string } {
  const predicates: Predicate[] = [];
  for (const [i, f] of filters.entries()) {
    const p = compileOne(f);
    if (typeof p === 'string') return { error: `invalid filter ${i}: ${p}` };
    predicates.push(p);
  }
  return { matches: (flow) => predicates.every((p) => p(flow)) };
}
