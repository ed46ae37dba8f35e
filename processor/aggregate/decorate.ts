// What Antrea adds to an aggregated flow at its first export (sendAggregatedRecord, reference §5.6):
// the missing side's Pod identity for a flow that was never correlated (an inter-Node deny flow, or a
// half whose peer never came), the Pod labels, and with includeK8sUIDs the Service and Egress-Node UIDs.
// Done once per flow, as Antrea does, and kept in the flow's state (so a restore does not look up again).
import type { PodInfo } from '../../lib/k8s/metadata.js';
import { labelsOf, nodeNamed, type MetadataOptions, podAt, serviceOfPortName, uidBytes } from '../metadata-fill.js';
import {
  F_START, F_WIDTH, I_DESTINATION_LABELS, I_DESTINATION_NODE_NAME, I_DESTINATION_POD_NAME, I_DESTINATION_POD_NAMESPACE, I_EGRESS_NODE_NAME,
  I_SERVICE_PORT_NAME, I_SOURCE_ADDRESS, I_SOURCE_LABELS, I_SOURCE_NODE_NAME, I_SOURCE_POD_NAME, I_SOURCE_POD_NAMESPACE, I_WIDTH, uuidColumn,
} from './columns.js';
import { keyAddress } from './flow-key-text.js';
import type { FlowStore } from './store.js';

const SIDES = [
  { pod: I_SOURCE_POD_NAME, namespace: I_SOURCE_POD_NAMESPACE, node: I_SOURCE_NODE_NAME, labels: I_SOURCE_LABELS, podUuid: uuidColumn('sourcePodUUID'), nodeUuid: uuidColumn('sourceNodeUUID') },
  { pod: I_DESTINATION_POD_NAME, namespace: I_DESTINATION_POD_NAMESPACE, node: I_DESTINATION_NODE_NAME, labels: I_DESTINATION_LABELS, podUuid: uuidColumn('destinationPodUUID'), nodeUuid: uuidColumn('destinationNodeUUID') },
] as const;

/** The address of a flow's side (latin1 bytes): the source's may be an external client's, not the key's. */
function sideAddress(store: FlowStore, slot: number, side: 0 | 1): string {
  const source = side === 0 ? store.i32[slot * I_WIDTH + I_SOURCE_ADDRESS]! : 0;
  return source !== 0 ? store.pool.text(source) : keyAddress(store.keys[slot]!, side);
}

/** Decorates a flow before its first export; `fillIdentity` for a flow that was never correlated. Returns whether anything changed. */
export function decorateFlow(store: FlowStore, slot: number, options: MetadataOptions, fillIdentity: boolean): boolean {
  const start = store.f64[slot * F_WIDTH + F_START]!;
  let changed = false;
  for (const side of [0, 1] as const) {
    const c = SIDES[side];
    const address = sideAddress(store, slot, side);
    if (fillIdentity && store.text(slot, c.pod) === '') changed = fillPod(store, slot, c, podAt(options, address, start), options) || changed;
    changed = store.setInterned(slot, c.labels, labelsOf(options, store.text(slot, c.pod), store.text(slot, c.namespace), address, start)) || changed;
  }
  if (options.includeK8sUIDs) {
    const service = serviceOfPortName(options, store.text(slot, I_SERVICE_PORT_NAME));
    if (service !== undefined) changed = store.setInterned(slot, uuidColumn('destinationServiceUUID'), uidBytes(service.uid)) || changed;
    const egressNode = nodeNamed(options, store.text(slot, I_EGRESS_NODE_NAME));
    if (egressNode !== undefined) changed = store.setInterned(slot, uuidColumn('egressNodeUUID'), uidBytes(egressNode.uid)) || changed;
  }
  return changed;
}

/** A side's Pod identity from the Pod that had its address; returns whether anything changed. */
function fillPod(store: FlowStore, slot: number, c: (typeof SIDES)[number], pod: PodInfo | undefined, options: MetadataOptions): boolean {
  if (pod === undefined) return false;
  let changed = store.setInterned(slot, c.pod, pod.name);
  changed = store.setInterned(slot, c.namespace, pod.namespace) || changed;
  changed = store.setInterned(slot, c.node, pod.nodeName) || changed;
  if (options.includeK8sUIDs) {
    changed = store.setInterned(slot, c.podUuid, uidBytes(pod.uid)) || changed;
    const node = nodeNamed(options, pod.nodeName);
    if (node !== undefined) changed = store.setInterned(slot, c.nodeUuid, uidBytes(node.uid)) || changed;
  }
  return changed;
}
