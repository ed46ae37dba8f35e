// Builders of store events for tests: a Pod, Node or Service with only what the test cares about.
import { type MetadataEvent, type NodeObject, type PodObject, type ServiceObject, labelsJson } from '../events.js';

export function pod(name: string, ips: string[], opts: { uid?: string; namespace?: string; node?: string; labels?: Record<string, string>; createdMs?: number; hostNetwork?: boolean } = {}): PodObject {
  const labels = opts.labels ?? {};
  return {
    kind: 'Pod',
    info: { namespace: opts.namespace ?? 'default', name, uid: opts.uid ?? `uid-${name}`, nodeName: opts.node ?? 'node-1', labels, labelsJson: labelsJson(labels) },
    ips,
    hostNetwork: opts.hostNetwork ?? false,
    createdMs: opts.createdMs ?? 0,
  };
}

export function node(name: string, uid = `uid-${name}`): NodeObject {
  return { kind: 'Node', info: { name, uid } };
}

export function service(namespace: string, name: string, uid = `uid-${namespace}-${name}`): ServiceObject {
  return { kind: 'Service', info: { namespace, name, uid } };
}

export function upsert(object: PodObject | NodeObject | ServiceObject, timeMs: number): MetadataEvent {
  return { type: 'upsert', object, timeMs };
}

export function remove(object: PodObject | NodeObject | ServiceObject, timeMs: number): MetadataEvent {
  return { type: 'delete', object, timeMs };
}
