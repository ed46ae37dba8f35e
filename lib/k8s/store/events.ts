// What a metadata source tells the store: Kubernetes objects reduced to the fields flowagg reads, and
// their changes stamped with the time the source saw them. The informers produce these from watch
// events, the inventory from its file; the store knows neither.
import type { NodeInfo, PodInfo, ServiceInfo } from '../metadata.js';

interface Identified {
  /** The store's identity of the object when its UID cannot serve (inventory entries without one). */
  readonly id?: string;
}

export interface PodObject extends Identified {
  readonly kind: 'Pod';
  readonly info: PodInfo;
  /** status.podIPs, canonical text, both families. */
  readonly ips: readonly string[];
  readonly hostNetwork: boolean;
  /** Since when the Pod may have used its IPs (ms since the epoch); -Infinity for "always". */
  readonly createdMs: number;
}

export interface NodeObject extends Identified {
  readonly kind: 'Node';
  readonly info: NodeInfo;
}

export interface ServiceObject extends Identified {
  readonly kind: 'Service';
  readonly info: ServiceInfo;
}

export type KubeObjectRecord = PodObject | NodeObject | ServiceObject;
export type ObjectKind = KubeObjectRecord['kind'];

export type MetadataEvent =
  /** Added or changed (a new UID under a known namespace/name replaces the old object). */
  | { readonly type: 'upsert'; readonly object: KubeObjectRecord; readonly timeMs: number }
  /** Deleted at `timeMs`; kept for lookups until the store's retention has passed. */
  | { readonly type: 'delete'; readonly object: KubeObjectRecord; readonly timeMs: number }
  /** The cluster UUID appeared, changed or went away. */
  | { readonly type: 'clusterUuid'; readonly uuid: string | undefined };

/** The object's identity in its kind: its id, else its UID, else its name. */
export function objectId(o: KubeObjectRecord): string {
  return o.id ?? (o.info.uid !== '' ? o.info.uid : `name:${objectName(o)}`);
}

/** namespace/name, or the name of a cluster-scoped object. */
export function objectName(o: KubeObjectRecord): string {
  return o.kind === 'Node' ? o.info.name : `${o.info.namespace}/${o.info.name}`;
}

/** Antrea's label text: JSON of the label map with sorted keys (Go's encoding/json sorts map keys). */
export function labelsJson(labels: Readonly<Record<string, string>>): string {
  const sorted: Record<string, string> = {};
  for (const k of Object.keys(labels).sort()) sorted[k] = labels[k]!;
  return JSON.stringify(sorted);
}
