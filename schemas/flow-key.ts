// The flow key (DESIGN.md "Message log"): the Kafka message key of flows.raw and flows.processed. It is Antrea's
// directional 5-tuple (reference §5.2), so the murmur2 partitioner puts the source-Node and destination-Node
// halves of a flow in one partition:
//
//   IPv4:        04 | source IPv4 (4) | destination IPv4 (4) | protocol (1) | source port (2 BE) | destination port (2 BE)   14 bytes
//   IPv6:        06 | source IPv6 (16) | destination IPv6 (16) | protocol | source port | destination port                  38 bytes
//   no address:  00 | protocol | source port | destination port                                                             6 bytes
//
// IPv4 is used when the record has an IPv4 source or destination, else IPv6; a missing address or port is zero
// (Antrea agents send 0.0.0.0 and 0 themselves). The FROM_EXTERNAL rewrite of Antrea's v2.4+ aggregator: on the
// ingress-Node half of an inter-Node flow from outside the cluster (flowType FROM_EXTERNAL = 4, no destination
// Pod name, a proxy SNAT address), the key uses proxySnatIP and proxySnatPort instead of the source address and
// port, so that it matches the destination Node's record, which saw the post-SNAT tuple.
import type { FlowRecord } from './flow-record.js';

export const FLOW_TYPE_FROM_EXTERNAL = 4;
export const FLOW_KEY_MAX_LENGTH = 38;
const FAMILY_NONE = 0;
const FAMILY_V4 = 4;
const FAMILY_V6 = 6;

/**
 * What the key is made of, as offsets into one byte array (-1 = absent), so that the transcoder fills it from
 * the IPFIX record bytes without copying. Reused from record to record: call reset() first.
 */
export class FlowKeyInput {
  bytes: Uint8Array = new Uint8Array(0);
  sourceIPv4 = -1;
  destinationIPv4 = -1;
  sourceIPv6 = -1;
  destinationIPv6 = -1;
  proxySnatIPv4 = -1;
  proxySnatIPv6 = -1;
  protocol = 0;
  sourcePort = 0;
  destinationPort = 0;
  proxySnatPort = 0;
  flowType = 0;
  destinationPodNamed = false;

  reset(bytes: Uint8Array): this {
    this.bytes = bytes;
    this.sourceIPv4 = this.destinationIPv4 = this.sourceIPv6 = this.destinationIPv6 = this.proxySnatIPv4 = this.proxySnatIPv6 = -1;
    this.protocol = this.sourcePort = this.destinationPort = this.proxySnatPort = this.flowType = 0;
    this.destinationPodNamed = false;
    return this;
  }
}

function isSet(b: Uint8Array, at: number, len: number): boolean {
  if (at < 0) return false;
  for (let i = 0; i < len; i++) if (b[at + i] !== 0) return true;
  return false;
}

function putAddress(out: Uint8Array, p: number, b: Uint8Array, at: number, len: number): number {
  for (let i = 0; i < len; i++) out[p + i] = at < 0 ? 0 : (b[at + i] as number);
  return p + len;
}

/** Writes the key of `k` at out[p..]; returns the position after it (at most FLOW_KEY_MAX_LENGTH bytes). */
export function writeFlowKey(k: FlowKeyInput, out: Uint8Array, p: number): number {
  const b = k.bytes;
  const family = k.sourceIPv4 >= 0 || k.destinationIPv4 >= 0 ? FAMILY_V4 : k.sourceIPv6 >= 0 || k.destinationIPv6 >= 0 ? FAMILY_V6 : FAMILY_NONE;
  const len = family === FAMILY_V4 ? 4 : 16;
  const snat = family === FAMILY_V4 ? k.proxySnatIPv4 : k.proxySnatIPv6;
  const rewrite = family !== FAMILY_NONE && k.flowType === FLOW_TYPE_FROM_EXTERNAL && !k.destinationPodNamed && isSet(b, snat, len);
  out[p++] = family;
  if (family !== FAMILY_NONE) {
    p = putAddress(out, p, b, rewrite ? snat : family === FAMILY_V4 ? k.sourceIPv4 : k.sourceIPv6, len);
    p = putAddress(out, p, b, family === FAMILY_V4 ? k.destinationIPv4 : k.destinationIPv6, len);
  }
  const sourcePort = rewrite ? k.proxySnatPort : k.sourcePort;
  out[p] = k.protocol;
  out[p + 1] = sourcePort >>> 8;
  out[p + 2] = sourcePort & 0xff;
  out[p + 3] = k.destinationPort >>> 8;
  out[p + 4] = k.destinationPort & 0xff;
  return p + 5;
}

export function flowKeyBytes(k: FlowKeyInput): Buffer {
  const out = Buffer.allocUnsafe(FLOW_KEY_MAX_LENGTH);
  return out.subarray(0, writeFlowKey(k, out, 0));
}

/** The key of a decoded FlowRecord (the processor re-keys flows.processed with it). */
export function flowKeyOfRecord(r: FlowRecord): Buffer {
  // The six addresses side by side in one array, as the transcoder has them in the IPFIX record.
  const bytes = new Uint8Array(4 * 3 + 16 * 3);
  const k = new FlowKeyInput().reset(bytes);
  const place = (ip: Buffer | null, at: number): number => {
    if (ip === null) return -1;
    bytes.set(ip, at);
    return at;
  };
  k.sourceIPv4 = place(r.sourceIPv4Address, 0);
  k.destinationIPv4 = place(r.destinationIPv4Address, 4);
  k.proxySnatIPv4 = place(r.proxySnatIPv4, 8);
  k.sourceIPv6 = place(r.sourceIPv6Address, 12);
  k.destinationIPv6 = place(r.destinationIPv6Address, 28);
  k.proxySnatIPv6 = place(r.proxySnatIPv6, 44);
  k.protocol = r.protocolIdentifier ?? 0;
  k.sourcePort = r.sourceTransportPort ?? 0;
  k.destinationPort = r.destinationTransportPort ?? 0;
  k.proxySnatPort = r.proxySnatPort ?? 0;
  k.flowType = r.flowType ?? 0;
  k.destinationPodNamed = r.destinationPodName !== null && r.destinationPodName !== '';
  return flowKeyBytes(k);
}

export interface FlowKey {
  readonly family: 0 | 4 | 6;
  /** Address bytes; empty when the key has no addresses. */
  readonly source: Uint8Array;
  readonly destination: Uint8Array;
  readonly protocol: number;
  readonly sourcePort: number;
  readonly destinationPort: number;
}

/** Reads a key back (tests, debugging, tools); undefined when `key` is not a flow key. */
export function parseFlowKey(key: Uint8Array): FlowKey | undefined {
  const family = key[0];
  const len = family === FAMILY_V4 ? 4 : family === FAMILY_V6 ? 16 : 0;
  if ((family !== FAMILY_NONE && len === 0) || key.length !== 1 + 2 * len + 5) return undefined;
  const p = 1 + 2 * len;
  return {
    family: family as 0 | 4 | 6,
    source: new Uint8Array(key.subarray(1, 1 + len)),
    destination: new Uint8Array(key.subarray(1 + len, p)),
    protocol: key[p] as number,
    sourcePort: ((key[p + 1] as number) << 8) | (key[p + 2] as number),
    destinationPort: ((key[p + 3] as number) << 8) | (key[p + 4] as number),
  };
}
