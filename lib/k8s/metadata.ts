// What the processor asks about Kubernetes objects, whichever source answers: informers on the API
// server in a cluster (lib/k8s/informers), or an inventory file outside one (lib/k8s/inventory). Lookups
// are synchronous reads of in-memory stores, so that they can run on the processor's hot path.
export interface PodInfo {
  readonly namespace: string;
  readonly name: string;
  /** metadata.uid, the text form ("8d0f…-…"). */
  readonly uid: string;
  /** spec.nodeName; "" when not scheduled. */
  readonly nodeName: string;
  readonly labels: Readonly<Record<string, string>>;
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

export interface MetadataSource {
  /**
   * The Pod that had `ip` (canonical text: dotted IPv4, RFC 5952 IPv6) at `timeMs` (ms since the epoch):
   * created at or before it and not deleted before it. Deleted Pods are kept 5 minutes, as Antrea's
   * object store keeps them, so that late records still find them.
   */
  podByIp(ip: string, timeMs: number): PodInfo | undefined;
  nodeByName(name: string): NodeInfo | undefined;
  serviceByName(namespace: string, name: string): ServiceInfo | undefined;
  /** The cluster UUID from the `antrea-cluster-identity` ConfigMap, when known. */
  clusterUuid(): string | undefined;
  /** Resolves once the stores have synced, or once the sync timeout passed (the source logs which). */
  ready(): Promise<void>;
  close(): Promise<void>;
}
