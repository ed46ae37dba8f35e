// What both modes ask Kubernetes (through lib/k8s/metadata.ts, whichever source answers), and how the
// answers become FlowRecord values: Antrea's fillK8sMetadata (the missing side of a flow: Pod name,
// namespace and Node, by IP at the flow's start), fillPodLabels (labels as JSON with sorted keys, "{}"
// for a Pod without labels, "" when the side is not a Pod or labels are off: PodInfo.labelsJson), and
// the UIDs of includeK8sUIDs.
import { formatIpv6 } from '../lib/ipfix/text.js';
import { type MetadataSource, type NodeInfo, type PodInfo, type ServiceInfo, serviceOfPortName as serviceReference } from '../lib/k8s/metadata.js';

export interface MetadataOptions {
  /** Absent: nothing is looked up (labels are "", missing sides stay missing). */
  readonly metadata: MetadataSource | undefined;
  /** recordContents.podLabels; applied live (Processor.setPodLabels), to records output from then on. */
  podLabels: boolean;
  /** flowCollector.includeK8sUIDs. */
  readonly includeK8sUIDs: boolean;
}


/** A UID's text ("8d0f2c1a-9b7e-4d3c-…") as its 16 bytes in latin1; "" when it is not a UUID. */
export function uidBytes(uid: string): string {
  const hex = uid.replaceAll('-', '');
  return /^[0-9a-fA-F]{32}$/.test(hex) ? Buffer.from(hex, 'hex').toString('latin1') : '';
}

/** The Pod that had an address (latin1 bytes: 4 for IPv4, 16 for IPv6) at a time. */
export function podAt(options: MetadataOptions, address: string, timeMs: number): PodInfo | undefined {
  const metadata = options.metadata;
  if (metadata === undefined) return undefined;
  if (address.length === 4) {
    const n = ((address.charCodeAt(0) << 24) | (address.charCodeAt(1) << 16) | (address.charCodeAt(2) << 8) | address.charCodeAt(3)) >>> 0;
    return metadata.podByIpv4(n, timeMs);
  }
  return address.length === 16 ? metadata.podByIp(formatIpv6(Buffer.from(address, 'latin1'), 0), timeMs) : undefined;
}

export function nodeNamed(options: MetadataOptions, name: string): NodeInfo | undefined {
  return name === '' || options.metadata === undefined ? undefined : options.metadata.nodeByName(name);
}

/** The Service of a destinationServicePortName ("namespace/name:port"), cut at ':' as Antrea does. */
export function serviceOfPortName(options: MetadataOptions, portName: string): ServiceInfo | undefined {
  const ref = options.metadata === undefined ? undefined : serviceReference(portName);
  return ref === undefined ? undefined : options.metadata!.serviceByName(ref.namespace, ref.name);
}

/** A side's labels JSON: looked up only for a side that names a Pod (name and namespace), and only when wanted. */
export function labelsOf(options: MetadataOptions, podName: string, podNamespace: string, address: string, timeMs: number): string {
  if (!options.podLabels || podName === '' || podNamespace === '') return '';
  return podAt(options, address, timeMs)?.labelsJson ?? '';
}
