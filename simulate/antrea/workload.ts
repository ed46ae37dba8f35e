// A synthetic Antrea cluster and the flow records its agents export: pure and deterministic from a seed,
// for the processor's tests and benchmark and for `flowagg simulate`.
//
//   const w = antreaWorkload({ nodes: 6, flows: 100_000, recordsPerHalf: 5, seed: 1 });
//   for (const r of w.records()) ...   // every agent record, in export-time order
//   w.flow(i)                          // flow i: its kind, endpoints, and what its records add up to
//
// The cluster: N Nodes (node-0 … node-N-1, Node IPs 192.168.0.i, observation domain = FNV-1 of the Node
// name as Antrea's agent computes it), P Pods per Node (IPv4 from the Node's Pod CIDR in 10.0.0.0/8, a
// /24 as Antrea's default or larger for more Pods, the gateway at .1; IPv6 fd00:10::/32), a handful of
// Services and external hosts.
// The flows, M concurrent ones, of every kind in a fixed mix (override with `mix`):
//   intraNode     both Pods on one Node, reported by it alone, both sides named
//   interNode     Pods on two Nodes, each Node reporting its half (source half: source Pod named and
//                 Service info; destination half: destination Pod named), in either order
//   toExternal    a Pod to an outside address, through an Egress
//   fromExternal  an outside client through a NodePort on one Node, SNATed to that Node's gateway, to a
//                 Pod on another Node: the ingress Node reports the pre-SNAT tuple with proxySnatIP/Port,
//                 the Pod's Node the post-SNAT one
//   denyEgress    a Pod's connection dropped or rejected by an egress rule, reported by its Node only
//   denyIngress   rejected by an ingress rule at the destination Node, reported by it only
// A share of the flows is IPv6 (`ipv6Share`). Each reporting agent exports every flow once per export
// interval (Antrea's activeFlowExportTimeout, 5 s), `recordsPerHalf` times, with cumulative totals and
// per-interval deltas growing at a per-flow rate; the last record ends the flow (flowEndReason 3,
// TIME_WAIT). Agents' clocks differ by up to a second, so a flow's two halves arrive in either order.
//
// Records are values of the Antrea agent template (agentTemplate(), reference §4.3 "Agent → FA"), so they
// can be sent as IPFIX or turned into FlowRecords (records.ts).
import type { FieldValue } from '../../lib/ipfix/types.js';
import { seededRandom } from '../../lib/prng.js';

export const FLOW_KINDS = ['intraNode', 'interNode', 'toExternal', 'fromExternal', 'denyEgress', 'denyIngress'] as const;
export type FlowKind = (typeof FLOW_KINDS)[number];

export interface WorkloadOptions {
  /** Nodes in the cluster, at most 65,536 (and at most 2^24 addresses of Pod CIDRs in all). */
  readonly nodes: number;
  /**
   * The number of the first Node: node-<firstNode> … (with its Node IP, Pod CIDR and observation domain), so
   * that several workloads (simulators) sending to one collector each have Nodes and flows of their own.
   * Default 0; firstNode + nodes is at most MAX_NODES.
   */
  readonly firstNode?: number;
  /** Pods per Node, at most 4096. Default 200. */
  readonly podsPerNode?: number;
  /** Concurrent flows. */
  readonly flows: number;
  /** Records each reporting Node exports per flow. Default 5. */
  readonly recordsPerHalf?: number;
  /** Seconds between a Node's exports of a flow. Default 5 (Antrea's activeFlowExportTimeout). */
  readonly exportIntervalS?: number;
  /** Share of each kind; normalised. Default: mostly inter-Node, every kind present. */
  readonly mix?: Partial<Record<FlowKind, number>>;
  /** Share of IPv6 flows, 0..1. Default 0.1. */
  readonly ipv6Share?: number;
  /** Export time of the first records, seconds since the epoch. Default 1,700,000,000. */
  readonly startTime?: number;
  readonly seed?: number;
}

export interface AgentNode {
  readonly index: number;
  readonly name: string;
  /** The exporter address the collector sees (the Node IP). */
  readonly address: string;
  /** FNV-1 32-bit of the Node name, as Antrea's agent derives its observation domain id. */
  readonly observationDomainId: number;
}

export type Half = 'source' | 'destination';

export interface FlowPlan {
  readonly index: number;
  readonly kind: FlowKind;
  readonly family: 4 | 6;
  /** Nodes reporting it: the source Node's half first, then the destination Node's when both report. */
  readonly reporters: readonly { readonly node: AgentNode; readonly half: Half }[];
  readonly protocol: number;
  /** Node and Pod indexes of the two ends (for an external end, the Node it enters or leaves by). */
  readonly sourceNode: number;
  readonly sourcePod: number;
  readonly destinationNode: number;
  readonly destinationPod: number;
  readonly sourceAddress: string;
  readonly sourcePort: number;
  readonly destinationAddress: string;
  readonly destinationPort: number;
  /** Flow start, seconds. */
  readonly start: number;
  /** Per record: packets and octets forward and reverse added in each interval. */
  readonly rate: { readonly packets: number; readonly octets: number; readonly reversePackets: number; readonly reverseOctets: number };
  /** What every reporter's totals end at (each Node counts the same packets). */
  readonly totals: { readonly packets: number; readonly octets: number; readonly reversePackets: number; readonly reverseOctets: number };
}

/** A Pod at one end of a flow. */
export interface FlowPod {
  readonly namespace: string;
  readonly name: string;
  readonly node: string;
}

/** The policy rule that denies a flow, as the reporting Node names it. */
export interface FlowPolicy {
  readonly direction: 'ingress' | 'egress';
  readonly namespace: string;
  readonly name: string;
  readonly rule: string;
  /** Antrea's rule action: 2 Drop, 3 Reject. */
  readonly action: 2 | 3;
}

/** What a flow's records name: its Pods (an end outside the cluster has none) and the rule denying it. */
export interface FlowEnds {
  readonly source?: FlowPod;
  readonly destination?: FlowPod;
  readonly policy?: FlowPolicy;
}

export interface AgentRecord {
  readonly node: AgentNode;
  /** IPFIX message export time, seconds. */
  readonly exportTime: number;
  readonly family: 4 | 6;
  /** Values of agentTemplate(family), field by field. */
  readonly values: FieldValue[];
  readonly flow: number;
  readonly half: Half;
  /** 0-based number of this record among the half's records. */
  readonly round: number;
}

/** The Antrea agent → FlowAggregator IPFIX template (43 elements), for IPv4 or IPv6. */
export function agentFieldNames(family: 4 | 6): readonly string[] {
  const v = family === 4 ? 'IPv4' : 'IPv6';
  return [
    'flowStartSeconds', 'flowEndSeconds', 'flowEndReason', 'sourceTransportPort', 'destinationTransportPort', 'protocolIdentifier',
    'packetTotalCount', 'octetTotalCount', 'packetDeltaCount', 'octetDeltaCount', `source${v}Address`, `destination${v}Address`,
    'reversePacketTotalCount', 'reverseOctetTotalCount', 'reversePacketDeltaCount', 'reverseOctetDeltaCount',
    'sourcePodName', 'sourcePodNamespace', 'sourceNodeName', 'destinationPodName', 'destinationPodNamespace', 'destinationNodeName',
    'destinationServicePort', 'destinationServicePortName',
    'ingressNetworkPolicyName', 'ingressNetworkPolicyNamespace', 'ingressNetworkPolicyType', 'ingressNetworkPolicyRuleName', 'ingressNetworkPolicyRuleAction',
    'egressNetworkPolicyName', 'egressNetworkPolicyNamespace', 'egressNetworkPolicyType', 'egressNetworkPolicyRuleName', 'egressNetworkPolicyRuleAction',
    'tcpState', 'flowType', 'egressName', 'egressIP', 'egressNodeName', 'proxySnatPort',
    `destinationCluster${v}`, `proxySnat${v}`, `destinationService${v}`,
  ];
}

/** FNV-1 32-bit (Go's hash/fnv New32) of a string's UTF-8 bytes. */
export function fnv1(text: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(text, 'utf8')) h = (Math.imul(h, 0x01000193) ^ b) >>> 0;
  return h;
}

const DEFAULT_MIX: Record<FlowKind, number> = { intraNode: 0.2, interNode: 0.55, toExternal: 0.1, fromExternal: 0.05, denyEgress: 0.05, denyIngress: 0.05 };
const NAMESPACES = ['shop', 'payments', 'monitoring', 'default'];
/** Positions of the values that change from one record of a half to the next (the same in both families' templates). */
const [FLOW_END, END_REASON, PACKETS, OCTETS, REVERSE_PACKETS, REVERSE_OCTETS, TCP_STATE] = [
  'flowEndSeconds', 'flowEndReason', 'packetTotalCount', 'octetTotalCount', 'reversePacketTotalCount', 'reverseOctetTotalCount', 'tcpState',
].map((name) => agentFieldNames(4).indexOf(name)) as [number, number, number, number, number, number, number];
const FLOW_TYPE: Record<FlowKind, number> = { intraNode: 1, interNode: 2, toExternal: 3, fromExternal: 4, denyEgress: 2, denyIngress: 2 };

export interface Workload {
  readonly options: Required<Omit<WorkloadOptions, 'mix'>> & { readonly mix: Readonly<Record<FlowKind, number>> };
  readonly nodes: readonly AgentNode[];
  readonly flowCount: number;
  /** Records per half × reporters, over every flow. */
  readonly recordCount: number;
  flow(i: number): FlowPlan;
  /** The Pods and the denying rule of a flow. */
  ends(plan: FlowPlan): FlowEnds;
  /**
   * Every record, in export-time order (ties in flow order), the same sequence every time; of flows
   * [from, to) when given (a later generation of flows, see `flow`).
   */
  records(from?: number, to?: number): Generator<AgentRecord>;
}

/** Node IPs 192.168.x.y: a Node per address of the /16. */
export const MAX_NODES = 65_536;
/** 10.0.0.0, the Pod network, as a number. */
const POD_NETWORK = 10 * 2 ** 24;

/** A Node's Pod CIDR: a /24 (Antrea's default), or the smallest larger block that holds its Pods, the network address and the gateway. */
function podCidrSize(podsPerNode: number): number {
  let size = 256;
  while (size < podsPerNode + 2) size *= 2;
  return size;
}

/** Distinct names and addresses kept for reuse (a cluster's Pods, Services and external hosts of its flows). */
const MAX_INTERNED = 65_536;

const ipv4Text = (n: number) => `${Math.floor(n / 2 ** 24)}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;

export function antreaWorkload(input: WorkloadOptions): Workload {
  const options = {
    podsPerNode: 200, recordsPerHalf: 5, exportIntervalS: 5, ipv6Share: 0.1, startTime: 1_700_000_000, seed: 1, ...input, firstNode: input.firstNode ?? 0,
    mix: { ...DEFAULT_MIX, ...input.mix },
  };
  const first = options.firstNode;
  if (options.nodes < 1 || first < 0 || first + options.nodes > MAX_NODES || options.podsPerNode < 1 || options.podsPerNode > 4096) {
    throw new RangeError(`antreaWorkload: 1..${MAX_NODES} Nodes (numbered below ${MAX_NODES}), 1..4096 Pods per Node`);
  }
  const cidrSize = podCidrSize(options.podsPerNode);
  if ((first + options.nodes) * cidrSize > 2 ** 24) throw new RangeError(`antreaWorkload: ${first + options.nodes} Pod CIDRs of ${cidrSize} addresses do not fit in 10.0.0.0/8`);
  const nodes: AgentNode[] = Array.from({ length: options.nodes }, (_, i) => ({
    index: i, name: `node-${first + i}`, address: `192.168.${(first + i) >> 8}.${(first + i) & 255}`, observationDomainId: fnv1(`node-${first + i}`),
  }));
  const kinds = FLOW_KINDS.filter((k) => options.mix[k] > 0);
  const weights = kinds.map((k) => options.mix[k]);
  const sum = weights.reduce((a, b) => a + b, 0);
  const cumulative = weights.map((_, i) => weights.slice(0, i + 1).reduce((a, b) => a + b, 0) / sum);
  // Of the Node at `index` in `nodes`: its Pod CIDR and names follow its number, first + index.
  // Names and addresses are interned, so that every record carrying one carries the same string: an
  // encoder's caches (lib/ipfix/encoder-caches.ts) then find it at the cost of a pointer comparison.
  const texts = new Map<string, string>();
  const intern = (text: string) => {
    const known = texts.get(text);
    if (known !== undefined) return known;
    if (texts.size < MAX_INTERNED) texts.set(text, text);
    return text;
  };
  const podAddress = (family: 4 | 6, index: number, pod: number, node = first + index) =>
    intern(family === 4 ? ipv4Text(POD_NETWORK + node * cidrSize + 2 + pod) : `fd00:10:0:${node.toString(16)}::${(pod + 1).toString(16)}`);
  const gateway = (family: 4 | 6, index: number, node = first + index) => intern(family === 4 ? ipv4Text(POD_NETWORK + node * cidrSize + 1) : `fd00:10:0:${node.toString(16)}::ffff`);
  const podName = (index: number, pod: number, node = first + index) => intern(`app-${(pod % 37).toString(36)}-7d9f8c6b5-${node.toString(36)}x${pod.toString(36).padStart(3, '0')}`);

  const plans = new Map<number, FlowPlan>();
  function flow(i: number): FlowPlan {
    const cached = plans.get(i);
    if (cached !== undefined) return cached;
    const rnd = seededRandom(options.seed * 1_000_003 + i);
    const u = rnd();
    const kind = kinds[cumulative.findIndex((c) => u < c)] ?? kinds[kinds.length - 1]!;
    const family: 4 | 6 = rnd() < options.ipv6Share ? 6 : 4;
    const a = Math.floor(rnd() * options.nodes);
    const other = options.nodes === 1 ? a : (a + 1 + Math.floor(rnd() * (options.nodes - 1))) % options.nodes;
    const b = kind === 'intraNode' ? a : other;
    const podA = Math.floor(rnd() * options.podsPerNode);
    const podB = Math.floor(rnd() * options.podsPerNode);
    const external = intern(family === 4 ? `203.0.${113 + (i % 3)}.${1 + (i % 250)}` : `2001:db8:${(i % 4096).toString(16)}::${(1 + (i % 250)).toString(16)}`);
    const sourcePort = 1024 + (i % 60_000);
    const destinationPort = [80, 443, 5432, 6379, 8080][i % 5]!;
    const reporters: FlowPlan['reporters'] =
      kind === 'interNode' || kind === 'fromExternal' ? [{ node: nodes[a]!, half: 'source' }, { node: nodes[b]!, half: 'destination' }]
        : kind === 'denyIngress' ? [{ node: nodes[b]!, half: 'destination' }]
          : [{ node: nodes[a]!, half: 'source' }];
    const rate = {
      packets: 1 + Math.floor(rnd() * 2000), octets: 0, reversePackets: 1 + Math.floor(rnd() * 1500), reverseOctets: 0,
    };
    rate.octets = rate.packets * (64 + Math.floor(rnd() * 1400));
    rate.reverseOctets = rate.reversePackets * (64 + Math.floor(rnd() * 1400));
    if (kind === 'denyEgress' || kind === 'denyIngress') Object.assign(rate, { packets: 1 + (i % 3), octets: 60 * (1 + (i % 3)), reversePackets: 0, reverseOctets: 0 });
    const n = options.recordsPerHalf;
    const plan: FlowPlan = {
      index: i, kind, family, reporters, protocol: 6, sourceNode: a, sourcePod: podA, destinationNode: b, destinationPod: podB,
      sourceAddress: kind === 'fromExternal' ? external : podAddress(family, a, podA), sourcePort,
      destinationAddress: kind === 'toExternal' ? external : podAddress(family, b, podB), destinationPort,
      // Flow i + flows starts about when flow i ends, so that a reader going on past `flows` (flowagg
      // simulate) keeps `flows` of them running.
      start: options.startTime - 1 + Math.floor(rnd() * options.exportIntervalS) + Math.floor(i / options.flows) * options.recordsPerHalf * options.exportIntervalS,
      rate,
      totals: { packets: rate.packets * n, octets: rate.octets * n, reversePackets: rate.reversePackets * n, reverseOctets: rate.reverseOctets * n },
    };
    if (plans.size < 100_000) plans.set(i, plan);
    return plan;
  }

  function policyOf(plan: FlowPlan): FlowPolicy | undefined {
    const ns = NAMESPACES[plan.index % NAMESPACES.length]!;
    if (plan.kind === 'denyIngress') return { direction: 'ingress', namespace: ns, name: 'deny-from-untrusted', rule: 'reject-all', action: 3 };
    if (plan.kind === 'denyEgress') return { direction: 'egress', namespace: ns, name: 'egress-lockdown', rule: 'drop-external', action: plan.index % 2 === 0 ? 2 : 3 };
    return undefined;
  }

  function ends(plan: FlowPlan): FlowEnds {
    const ns = NAMESPACES[plan.index % NAMESPACES.length]!;
    const end = (node: number, pod: number): FlowPod => ({ namespace: ns, name: podName(node, pod), node: nodes[node]!.name });
    const policy = policyOf(plan);
    return {
      ...(plan.kind !== 'fromExternal' && { source: end(plan.sourceNode, plan.sourcePod) }),
      ...(plan.kind !== 'toExternal' && { destination: end(plan.destinationNode, plan.destinationPod) }),
      ...(policy && { policy }),
    };
  }

  /**
   * A half's values but those of the round (filled by `roundValues`): made once per half and
   * copied for each of its records, so that its strings are the same objects in every record.
   */
  function halfValues(plan: FlowPlan, reporter: FlowPlan['reporters'][number]): FieldValue[] {
    const { sourceNode: nodeA, destinationNode: nodeB, sourcePod: podA, destinationPod: podB, kind: k, family } = plan;
    const source = reporter.half === 'source';
    const namesSource = k === 'intraNode' || (source && k !== 'fromExternal');
    const namesDestination = k === 'intraNode' || (!source && k !== 'toExternal');
    const ns = NAMESPACES[plan.index % NAMESPACES.length]!;
    const serviceIndex = plan.index % 50;
    const viaService = source && k !== 'toExternal' && k !== 'fromExternal' && plan.index % 2 === 0;
    const serviceIp = intern(family === 4 ? `10.96.0.${serviceIndex}` : `fd00:96::${serviceIndex.toString(16)}`);
    const zero = family === 4 ? '0.0.0.0' : '::';
    // The ingress Node of a FROM_EXTERNAL flow sees the client and SNATs to its gateway; the Pod's Node
    // sees the post-SNAT tuple, from that gateway: an inter-Node flow to it.
    const fromExternalIngress = k === 'fromExternal' && source;
    const postSnat = k === 'fromExternal' && !source;
    const snatPort = 30_000 + (plan.index % 30_000);
    const r = plan.rate;
    const policy = policyOf(plan);
    const ingress = policy?.direction === 'ingress' ? policy : undefined;
    const egress = policy?.direction === 'egress' ? policy : undefined;
    const snatGateway = fromExternalIngress || postSnat ? gateway(family, nodeA) : zero;
    // In the template's order (agentFieldNames); 0 and '' stand for the round's values (roundValues).
    return [
      // The flow's start on the reporting Node's clock, as its conntrack saw it: a Node's flow end is never
      // before its own flow start (Antrea ignores a Node's first record that ends no later than it starts).
      plan.start + clockOffset(reporter.node), 0, 0, postSnat ? snatPort : plan.sourcePort, plan.destinationPort, plan.protocol,
      0, 0, r.packets, r.octets, postSnat ? snatGateway : plan.sourceAddress, plan.destinationAddress,
      0, 0, r.reversePackets, r.reverseOctets,
      namesSource ? podName(nodeA, podA) : '', namesSource ? ns : '', namesSource ? nodes[nodeA]!.name : '',
      namesDestination ? podName(nodeB, podB) : '', namesDestination ? ns : '', namesDestination ? nodes[nodeB]!.name : '',
      viaService ? plan.destinationPort : fromExternalIngress ? 30_080 : 0, viaService ? intern(`${ns}/svc-${serviceIndex}:http`) : fromExternalIngress ? intern(`${ns}/nodeport:http`) : '',
      ingress?.name ?? '', ingress?.namespace ?? '', ingress ? 2 : 0, ingress?.rule ?? '', ingress?.action ?? 0,
      egress?.name ?? '', egress?.namespace ?? '', egress ? 1 : 0, egress?.rule ?? '', egress?.action ?? 0,
      '', fromExternalIngress ? 4 : postSnat ? 2 : FLOW_TYPE[k], k === 'toExternal' ? 'egress-prod' : '', k === 'toExternal' ? (family === 4 ? '172.18.0.9' : 'fd00:18::9') : '',
      k === 'toExternal' ? nodes[nodeA]!.name : '', fromExternalIngress ? snatPort : 0,
      viaService ? serviceIp : zero, fromExternalIngress ? snatGateway : zero, viaService ? serviceIp : zero,
    ];
  }

  /** The values of a half's record of `round`, exported at `end`. */
  function roundValues(half: readonly FieldValue[], rate: FlowPlan['rate'], round: number, end: number): FieldValue[] {
    const v = half.slice();
    const last = round === options.recordsPerHalf - 1;
    v[FLOW_END] = end;
    v[END_REASON] = last ? 3 : 2;
    v[PACKETS] = rate.packets * (round + 1);
    v[OCTETS] = rate.octets * (round + 1);
    v[REVERSE_PACKETS] = rate.reversePackets * (round + 1);
    v[REVERSE_OCTETS] = rate.reverseOctets * (round + 1);
    v[TCP_STATE] = last ? 'TIME_WAIT' : 'ESTABLISHED';
    return v;
  }

  const recordCount = (() => {
    let n = 0;
    for (let i = 0; i < options.flows; i++) n += flow(i).reporters.length * options.recordsPerHalf;
    return n;
  })();

  /** Each Node's clock is off by -1, 0 or +1 s: its flow ends and export times with it. */
  const clockOffset = (node: AgentNode) => (node.index % 3) - 1;

  function* records(from = 0, to = options.flows): Generator<AgentRecord> {
    const interval = options.exportIntervalS;
    // Each reporting agent polls a flow at start + k intervals on its own clock: one base second per
    // (flow, reporter), a handful of distinct bases. Grouping the pairs by base walks the records in
    // export-time order without holding them all: second by second, the groups due then. Within a
    // group the two halves of a flow come in an order that alternates from flow to flow.
    // The plans of the flows, and each half's values while it has rounds to come (made at its first).
    const plans = Array.from({ length: to - from }, (_, k) => flow(from + k));
    const halves = new Array<FieldValue[] | undefined>(2 * (to - from));
    const groups = new Map<number, number[]>();
    for (let i = from; i < to; i++) {
      const plan = plans[i - from]!;
      const order = plan.reporters.length === 2 && i % 2 === 1 ? [1, 0] : plan.reporters.map((_, j) => j);
      for (const j of order) {
        const base = plan.start + clockOffset(plan.reporters[j]!.node);
        let group = groups.get(base);
        if (group === undefined) groups.set(base, (group = []));
        group.push(i * 2 + j);
      }
    }
    const bases = [...groups.keys()].sort((x, y) => x - y);
    const first = bases[0]! + interval;
    const last = bases[bases.length - 1]! + options.recordsPerHalf * interval;
    for (let t = first; t <= last; t++) {
      for (const base of bases) {
        const round = (t - base) / interval - 1;
        if (!Number.isInteger(round) || round < 0 || round >= options.recordsPerHalf) continue;
        for (const pair of groups.get(base)!) {
          const at = pair - 2 * from;
          const plan = plans[at >> 1]!;
          const reporter = plan.reporters[pair & 1]!;
          const half = (halves[at] ??= halfValues(plan, reporter));
          if (round === options.recordsPerHalf - 1) halves[at] = undefined;
          yield { node: reporter.node, exportTime: t, family: plan.family, values: roundValues(half, plan.rate, round, t), flow: plan.index, half: reporter.half, round };
        }
      }
    }
  }

  return { options, nodes, flowCount: options.flows, recordCount, flow, ends, records };
}
