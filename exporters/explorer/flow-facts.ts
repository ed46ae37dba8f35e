// What the explorer takes from one record of flows.processed: when, how much, between which endpoints,
// through which Service, and which policy denied it. Pure; the rollups (rollups.ts) and the flow search
// (search-filter.ts) read records through it, so the page's figures and its flows agree.
//
// Counters: an aggregated record carries each Node's deltas (…FromSourceNode, …FromDestinationNode), and
// both Nodes count the same packets, so a record counts the source Node's once that Node has reported
// (flowEndSecondsFromSourceNode set), else the destination Node's; a record without them (Proxy mode,
// other exporters) counts its own octetDeltaCount. Bytes and packets are both directions added up.
import { formatIpv4, formatIpv6 } from '../../lib/ipfix/text.js';
import { LruMap } from '../../lib/lru-map.js';
import type { FlowRecord } from '../../schemas/flow-record.js';

/** An end of a flow. A Pod: its namespace, workload and name. Anything else: namespace "external", the address as workload and Pod. */
export interface Endpoint {
  readonly namespace: string;
  readonly workload: string;
  readonly pod: string;
}

export const EXTERNAL = 'external';

export type Direction = 'ingress' | 'egress';

export interface Denial {
  readonly direction: Direction;
  /** `namespace/name` of a namespaced policy, the name alone for a cluster-wide one. */
  readonly policy: string;
  readonly rule: string;
  readonly action: 'Drop' | 'Reject';
  /** The namespace of the Pod the rule applies to: the source's for egress, the destination's for ingress. */
  readonly namespace: string;
}

export interface FlowFacts {
  /** ms since the epoch: the end of the interval the counters cover. */
  readonly time: number;
  readonly bytes: number;
  readonly packets: number;
  readonly source: Endpoint;
  readonly destination: Endpoint;
  /** The Node that reported the source side (else the destination side, else ""). */
  readonly node: string;
  /** `namespace/name:port` of the Service the flow was addressed to, or "". */
  readonly service: string;
  /** The destination address of a flow to outside the cluster, or "". */
  readonly external: string;
  readonly denial: Denial | undefined;
}

const ACTIONS: Record<number, Denial['action']> = { 2: 'Drop', 3: 'Reject' };

/**
 * The workload a Pod belongs to, from its name: a Deployment's Pod (`name-<template hash>-<5 chars>`), a
 * DaemonSet's or Job's (`name-<5 chars>`), a StatefulSet's (`name-<ordinal>`), else the Pod itself.
 */
export function workloadOf(pod: string): string {
  const known = workloads.get(pod);
  if (known !== undefined) return known;
  const m = /^(.+)-[a-z0-9]{6,10}-[a-z0-9]{5}$/.exec(pod) ?? /^(.+)-[a-z0-9]{5}$/.exec(pod) ?? /^(.+)-\d+$/.exec(pod);
  const workload = m === null ? pod : m[1]!;
  workloads.set(pod, workload);
  if (workloads.size > WORKLOADS_KEPT) workloads.shift();
  return workload;
}

/** Pods seen lately and their workloads: the same Pods come back record after record, and three regular expressions a record cost more than the rest of it. */
const workloads = new LruMap<string, string>();
const WORKLOADS_KEPT = 10_000;

const text = (v: unknown) => (typeof v === 'string' ? v : '');
const num = (v: unknown) => (typeof v === 'number' ? v : 0);

export function addressText(b: Buffer | null): string {
  if (b === null) return '';
  return b.length === 4 ? formatIpv4(b, 0) : formatIpv6(b, 0);
}

export function sourceAddress(r: FlowRecord): string {
  return addressText(r.sourceIPv4Address ?? r.sourceIPv6Address);
}

export function destinationAddress(r: FlowRecord): string {
  return addressText(r.destinationIPv4Address ?? r.destinationIPv6Address);
}

/** `address` is asked only for an end that is no Pod. */
function endpoint(namespace: unknown, pod: unknown, address: () => string): Endpoint {
  const name = text(pod);
  if (name === '') {
    const a = address();
    return { namespace: EXTERNAL, workload: a, pod: a };
  }
  return { namespace: text(namespace), workload: workloadOf(name), pod: name };
}

function denial(r: FlowRecord, source: Endpoint, destination: Endpoint): Denial | undefined {
  const ingress = ACTIONS[num(r.ingressNetworkPolicyRuleAction)];
  const egress = ingress === undefined ? ACTIONS[num(r.egressNetworkPolicyRuleAction)] : undefined;
  if (ingress === undefined && egress === undefined) return undefined;
  const dir = ingress === undefined ? 'egress' : 'ingress';
  const ns = text(r[`${dir}NetworkPolicyNamespace`]);
  const name = text(r[`${dir}NetworkPolicyName`]);
  return {
    direction: dir,
    policy: ns === '' ? name : `${ns}/${name}`,
    rule: text(r[`${dir}NetworkPolicyRuleName`]),
    action: (ingress ?? egress)!,
    namespace: dir === 'ingress' ? destination.namespace : source.namespace,
  };
}

/** Bytes and packets of a record, both directions, from the Node whose count it carries (see above). */
export function recordCounters(r: FlowRecord): { bytes: number; packets: number } {
  if (num(r.flowEndSecondsFromSourceNode) > 0) {
    return { bytes: num(r.octetDeltaCountFromSourceNode) + num(r.reverseOctetDeltaCountFromSourceNode), packets: num(r.packetDeltaCountFromSourceNode) + num(r.reversePacketDeltaCountFromSourceNode) };
  }
  if (num(r.flowEndSecondsFromDestinationNode) > 0) {
    return { bytes: num(r.octetDeltaCountFromDestinationNode) + num(r.reverseOctetDeltaCountFromDestinationNode), packets: num(r.packetDeltaCountFromDestinationNode) + num(r.reversePacketDeltaCountFromDestinationNode) };
  }
  return { bytes: num(r.octetDeltaCount) + num(r.reverseOctetDeltaCount), packets: num(r.packetDeltaCount) + num(r.reversePacketDeltaCount) };
}

/** `logTime` (the record's log timestamp) stands in for a record without a flow end. */
export function flowFacts(r: FlowRecord, logTime: number): FlowFacts {
  const source = endpoint(r.sourcePodNamespace, r.sourcePodName, () => sourceAddress(r));
  const destination = endpoint(r.destinationPodNamespace, r.destinationPodName, () => destinationAddress(r));
  const { bytes, packets } = recordCounters(r);
  return {
    time: r.flowEndMilliseconds ?? logTime,
    bytes,
    packets,
    source,
    destination,
    node: text(r.sourceNodeName) || text(r.destinationNodeName),
    service: text(r.destinationServicePortName),
    external: destination.namespace === EXTERNAL ? destination.pod : '',
    denial: denial(r, source, destination),
  };
}
