// What the processor reads from an input FlowRecord, on top of the compiled scanner
// (schemas/flow-record-scanner.ts): field indexes resolved once, the event time of the record, the
// Antrea predicates of reference §5.3–5.4 (correlation needed, which Node reported it), and the flow key.
import { FLOW_TYPE_FROM_EXTERNAL, FLOW_KEY_MAX_LENGTH, FlowKeyInput, writeFlowKey } from '../schemas/flow-key.js';
import { fieldIndex, latin1, type ScannedRecord } from '../schemas/flow-record-scanner.js';
import { transportIndex } from '../schemas/flow-record.js';

export const FLOW_TYPE_INTRA_NODE = 1;
export const FLOW_TYPE_INTER_NODE = 2;
export const FLOW_TYPE_TO_EXTERNAL = 3;
export { FLOW_TYPE_FROM_EXTERNAL };
export const ACTION_DROP = 2;
export const ACTION_REJECT = 3;
export const END_OF_FLOW = 3;

export const R = {
  exporterAddress: fieldIndex('exporterAddress'),
  transport: fieldIndex('transport'),
  observationDomainId: fieldIndex('observationDomainId'),
  exportTime: fieldIndex('exportTime'),
  receiveTime: fieldIndex('receiveTime'),
  flowStart: fieldIndex('flowStartMilliseconds'),
  flowStartSource: fieldIndex('flowStartSource'),
  flowEnd: fieldIndex('flowEndMilliseconds'),
  flowEndSource: fieldIndex('flowEndSource'),
  sourceIPv4: fieldIndex('sourceIPv4Address'),
  destinationIPv4: fieldIndex('destinationIPv4Address'),
  sourceIPv6: fieldIndex('sourceIPv6Address'),
  destinationIPv6: fieldIndex('destinationIPv6Address'),
  sourcePort: fieldIndex('sourceTransportPort'),
  destinationPort: fieldIndex('destinationTransportPort'),
  protocol: fieldIndex('protocolIdentifier'),
  flowEndReason: fieldIndex('flowEndReason'),
  flowType: fieldIndex('flowType'),
  flowDirection: fieldIndex('flowDirection'),
  sourcePodName: fieldIndex('sourcePodName'),
  sourcePodNamespace: fieldIndex('sourcePodNamespace'),
  destinationPodName: fieldIndex('destinationPodName'),
  destinationPodNamespace: fieldIndex('destinationPodNamespace'),
  ingressAction: fieldIndex('ingressNetworkPolicyRuleAction'),
  egressAction: fieldIndex('egressNetworkPolicyRuleAction'),
  proxySnatIPv4: fieldIndex('proxySnatIPv4'),
  proxySnatIPv6: fieldIndex('proxySnatIPv6'),
  proxySnatPort: fieldIndex('proxySnatPort'),
  destinationServicePort: fieldIndex('destinationServicePort'),
  extras: fieldIndex('extras'),
} as const;

/** Whether a fixed field (an address, a UUID) is present and not all zeros (Antrea's "set"). */
export function isSetBytes(r: ScannedRecord, field: number): boolean {
  const s = r.start[field]!;
  if (s < 0) return false;
  const b = r.buf;
  for (let i = s, end = s + r.length[field]!; i < end; i++) if (b[i] !== 0) return true;
  return false;
}

/**
 * The ingress-Node half of an inter-Node flow from outside the cluster (reference §5.2): FROM_EXTERNAL,
 * no destination Pod, a proxy SNAT address. Its key is rewritten to the post-SNAT tuple.
 */
export function isFromExternalIngressHalf(r: ScannedRecord): boolean {
  return r.num[R.flowType] === FLOW_TYPE_FROM_EXTERNAL && !r.hasText(R.destinationPodName) && (isSetBytes(r, R.proxySnatIPv4) || isSetBytes(r, R.proxySnatIPv6));
}

const NETFLOW = [transportIndex('netflow_v9'), transportIndex('netflow_v5')];

/**
 * A NetFlow record (a router's or a hypervisor's view of a flow): aggregate mode passes it through as it is,
 * never into a flow of Antrea's halves that has its 5-tuple (docs/netflow.md).
 */
export function isNetflow(r: ScannedRecord): boolean {
  const t = r.num[R.transport]!;
  return t === NETFLOW[0] || t === NETFLOW[1];
}

/** Egress Drop/Reject or ingress Reject: the other Node never reports the flow (§5.3). */
export function isDenied(egressAction: number, ingressAction: number): boolean {
  return egressAction === ACTION_DROP || egressAction === ACTION_REJECT || ingressAction === ACTION_REJECT;
}

/** §5.3: only inter-Node flows (and the ingress half of a FROM_EXTERNAL one) need both halves; deny flows never. */
export function needsCorrelation(r: ScannedRecord): boolean {
  if (isDenied(r.num0(R.egressAction), r.num0(R.ingressAction))) return false;
  return r.num[R.flowType] === FLOW_TYPE_INTER_NODE || isFromExternalIngressHalf(r);
}

/** §5.4: reported by the source Node (a source Pod and no destination Pod, or the FROM_EXTERNAL ingress half). */
export function isFromSourceNode(r: ScannedRecord): boolean {
  return (r.hasText(R.sourcePodName) && !r.hasText(R.destinationPodName)) || isFromExternalIngressHalf(r);
}

/** Whether buf[start, start + a.length) holds a's bytes; a loop beats a native call for an address's few bytes. */
function sameBytes(buf: Buffer, start: number, a: Buffer): boolean {
  for (let i = 0; i < a.length; i++) if (buf[start + i] !== a[i]) return false;
  return true;
}

interface Source {
  readonly address: Buffer;
  readonly domain: number;
  readonly id: string;
}

/** Sources remembered by SourceIds before it starts over: far more Agents than one partition hears from. */
const MAX_REMEMBERED_SOURCES = 65_536;

/**
 * The source of records for the partition clock: the exporter's address and observation domain (an Agent),
 * as a string. Records of many Agents interleave, so ids are remembered by a hash of the address's bytes
 * and the domain: taking a known source's id allocates nothing.
 */
export class SourceIds {
  private readonly byHash = new Map<number, Source[]>();
  private remembered = 0;
  /** The source of the record before: ingest writes each connection's records in runs, so most records repeat it. */
  private last: Source | undefined;

  of(r: ScannedRecord): string {
    const start = r.start[R.exporterAddress]!;
    const end = start < 0 ? start : start + r.length[R.exporterAddress]!;
    const domain = r.num0(R.observationDomainId);
    const b = r.buf;
    const last = this.last;
    if (last !== undefined && last.domain === domain && last.address.length === end - start && sameBytes(b, start, last.address)) return last.id;
    const source = this.find(b, start, end, domain);
    this.last = source;
    return source.id;
  }

  private find(b: Buffer, start: number, end: number, domain: number): Source {
    let hash = Math.imul(0x811c9dc5 ^ domain, 16777619);
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ b[i]!, 16777619);
    let bucket = this.byHash.get(hash);
    if (bucket !== undefined) {
      for (const s of bucket) if (s.domain === domain && s.address.length === end - start && sameBytes(b, start, s.address)) return s;
    }
    if (this.remembered >= MAX_REMEMBERED_SOURCES) {
      this.byHash.clear();
      this.remembered = 0;
      bucket = undefined;
    }
    const address = start < 0 ? Buffer.alloc(0) : Buffer.from(b.subarray(start, end));
    const source = { address, domain, id: `${latin1(address, 0, address.length)}/${domain}` };
    if (bucket === undefined) this.byHash.set(hash, (bucket = []));
    bucket.push(source);
    this.remembered++;
    return source;
  }
}

const keyInput = new FlowKeyInput();
const keyBytes = Buffer.alloc(FLOW_KEY_MAX_LENGTH);

/** The flow key of a record (schemas/flow-key.ts, FROM_EXTERNAL rewrite included), as a latin1 string. */
export function flowKeyString(r: ScannedRecord): string {
  return latin1(keyBytes, 0, writeRecordFlowKey(r, keyBytes));
}

/** Writes the flow key of a record at the start of `out` (FLOW_KEY_MAX_LENGTH bytes at least); returns its length. */
export function writeRecordFlowKey(r: ScannedRecord, out: Buffer): number {
  const k = keyInput.reset(r.buf);
  k.sourceIPv4 = r.start[R.sourceIPv4]!;
  k.destinationIPv4 = r.start[R.destinationIPv4]!;
  k.sourceIPv6 = r.start[R.sourceIPv6]!;
  k.destinationIPv6 = r.start[R.destinationIPv6]!;
  k.proxySnatIPv4 = r.start[R.proxySnatIPv4]!;
  k.proxySnatIPv6 = r.start[R.proxySnatIPv6]!;
  k.protocol = r.num0(R.protocol);
  k.sourcePort = r.num0(R.sourcePort);
  k.destinationPort = r.num0(R.destinationPort);
  k.proxySnatPort = r.num0(R.proxySnatPort);
  k.flowType = r.num0(R.flowType);
  k.destinationPodNamed = r.hasText(R.destinationPodName);
  return writeFlowKey(k, out, 0);
}
