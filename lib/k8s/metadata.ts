// What the processor asks about Kubernetes objects, whichever source answers: informers on the API
// server in a cluster (lib/k8s/informers), or an inventory file outside one (lib/k8s/inventory). Lookups
// are synchronous reads of in-memory stores, so that they can run on the processor's hot path; both
// sources answer from one store (lib/k8s/store), so they answer alike.
export interface PodInfo {
  readonly namespace: string;
  readonly name: string;
  /** metadata.uid, the text form ("8d0f…-…"); "" when unknown (an inventory entry without one). */
  readonly uid: string;
  /** spec.nodeName; "" when not scheduled. */
  readonly nodeName: string;
  readonly labels: Readonly<Record<string, string>>;
  /** `labels` as Antrea exports them: JSON with sorted keys, "{}" when there are none. Computed once per Pod. */
  readonly labelsJson: string;
}

export interface NodeInfo {
  readonly name: string;
  readonly uid: string;
}

export interface ServiceInfo {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

export interface MetadataLookups {
  /**
   * The Pod that had `ip` (canonical text: dotted IPv4, RFC 5952 IPv6) at `timeMs` (ms since the epoch):
   * created at or before it and not deleted before it, give or take the configured clock-skew tolerance
   * (flow records carry whole seconds from the Nodes' clocks). Deleted Pods are kept 5 minutes (by
   * default), as Antrea's object store keeps them, so that late records still find them.
   * hostNetwork Pods are never returned: they share their Node's IP, so an IP names none of them (Antrea
   * leaves them out of its store for the same reason).
   */
  podByIp(ip: string, timeMs: number): PodInfo | undefined;
  /**
   * podByIp for an IPv4 address as an unsigned 32-bit number (network byte order read big-endian), for
   * callers holding the record's 4 bytes: no text to format, and a faster lookup.
   */
  podByIpv4(address: number, timeMs: number): PodInfo | undefined;
  /** The live Node of that name, else the one deleted last (kept as Pods are). */
  nodeByName(name: string): NodeInfo | undefined;
  /** The live Service, else the one deleted last (kept as Pods are). */
  serviceByName(namespace: string, name: string): ServiceInfo | undefined;
  /** The cluster UUID from the `antrea-cluster-identity` ConfigMap (or the inventory), when known. */
  clusterUuid(): string | undefined;
}

export interface MetadataSource extends MetadataLookups {
  /** Resolves once the stores have synced, or once the sync timeout passed (the source logs which). */
  ready(): Promise<void>;
  /** For /readyz: ready once every kind has been listed; the detail says what is missing or failing. */
  readiness(): { ready: boolean; detail?: string };
  close(): Promise<void>;
}

/**
 * The Service named by Antrea's destinationServicePortName ("ns/name:port"; the port name may be empty,
 * "ns/name:"), or undefined when the text has no "ns/name" part.
 */
export function serviceOfPortName(portName: string): { namespace: string; name: string } | undefined {
  const colon = portName.indexOf(':');
  const ref = colon === -1 ? portName : portName.slice(0, colon);
  const slash = ref.indexOf('/');
  if (slash <= 0 || slash === ref.length - 1) return undefined;
  return { namespace: ref.slice(0, slash), name: ref.slice(slash + 1) };
}
