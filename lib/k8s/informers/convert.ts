// Watch objects to store objects. The informer's cache keeps every object it hands to its callbacks, and
// a Pod with its managedFields, annotations and container specs weighs several KB (a Node with its image
// list tens of KB), so the callbacks also cut each cached object down to the fields read here and the
// ones the cache needs (name, namespace, resourceVersion): a 100,000-Pod cluster then costs megabytes,
// not gigabytes.
import type { V1ConfigMap, V1Node, V1ObjectMeta, V1Pod, V1Service } from '@kubernetes/client-node';
import { canonicalUuid, CLUSTER_IDENTITY_KEY } from '../cluster-identity.js';
import { canonicalIp } from '../ip.js';
import { labelsJson, type NodeObject, type PodObject, type ServiceObject } from '../store/events.js';

/**
 * Since when a Pod may have used its IPs: its creationTimestamp, except for a Pod first seen Pending,
 * whose IPs are not assigned yet: then the time it was seen, so that its span does not reach back over
 * the Pod that held the IP before (Antrea's podstore does the same).
 */
function podCreatedMs(pod: V1Pod, nowMs: number): number {
  if (pod.status?.phase === 'Pending') return nowMs;
  const created = timeMs(pod.metadata?.creationTimestamp);
  return created ?? nowMs;
}

export function podObject(pod: V1Pod, nowMs: number): PodObject {
  const meta = pod.metadata ?? {};
  const labels: Record<string, string> = { ...meta.labels };
  const reported = pod.status?.podIPs?.map((p) => p.ip) ?? (pod.status?.podIP === undefined ? [] : [pod.status.podIP]);
  const ips = reported.map(canonicalIp).filter((ip): ip is string => ip !== undefined);
  return {
    kind: 'Pod',
    info: Object.freeze({
      namespace: meta.namespace ?? '',
      name: meta.name ?? '',
      uid: meta.uid ?? '',
      nodeName: pod.spec?.nodeName ?? '',
      labels: Object.freeze(labels),
      labelsJson: labelsJson(labels),
    }),
    ips,
    hostNetwork: pod.spec?.hostNetwork === true,
    createdMs: podCreatedMs(pod, nowMs),
  };
}

export function nodeObject(node: V1Node): NodeObject {
  return { kind: 'Node', info: Object.freeze({ name: node.metadata?.name ?? '', uid: node.metadata?.uid ?? '' }) };
}

export function serviceObject(svc: V1Service): ServiceObject {
  const meta = svc.metadata ?? {};
  return { kind: 'Service', info: Object.freeze({ namespace: meta.namespace ?? '', name: meta.name ?? '', uid: meta.uid ?? '' }) };
}

/** The UUID in the cluster identity ConfigMap: undefined when absent; 'invalid' when it is not a UUID. */
export function clusterUuidOf(cm: V1ConfigMap): string | 'invalid' | undefined {
  const text = cm.data?.[CLUSTER_IDENTITY_KEY];
  if (text === undefined || text === '') return undefined;
  return canonicalUuid(text) ?? 'invalid';
}

function trimMeta(meta: V1ObjectMeta | undefined, keep: { labels?: boolean; created?: boolean } = {}): V1ObjectMeta {
  return {
    name: meta?.name,
    namespace: meta?.namespace,
    uid: meta?.uid,
    resourceVersion: meta?.resourceVersion,
    ...(keep.labels === true && { labels: meta?.labels }),
    ...(keep.created === true && { creationTimestamp: meta?.creationTimestamp }),
  };
}

/** Cuts a cached Pod down in place (see the top of this file). */
export function trimPod(pod: V1Pod): void {
  pod.metadata = trimMeta(pod.metadata, { labels: true, created: true });
  pod.spec = { nodeName: pod.spec?.nodeName, hostNetwork: pod.spec?.hostNetwork, containers: [] };
  pod.status = { phase: pod.status?.phase, podIPs: pod.status?.podIPs, podIP: pod.status?.podIP };
}

/** Cuts a cached Node or Service down to its metadata, in place. */
export function trimToMeta(obj: V1Node | V1Service): void {
  obj.metadata = trimMeta(obj.metadata);
  delete obj.spec;
  delete obj.status;
}

function timeMs(value: Date | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  // Typed list responses carry Dates; raw watch events carry RFC 3339 text.
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
