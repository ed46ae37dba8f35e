// What both modes ask Kubernetes (through lib/k8s/metadata.ts, whichever source answers), and how the
// answers become FlowRecord values: Antrea's fillK8sMetadata (the missing side of a flow: Pod name,
// namespace and Node, by IP at the flow's start), fillPodLabels, and the UIDs of includeK8sUIDs.
import { formatIpv4, formatIpv6 } from '../lib/ipfix/text.js';
import { type MetadataSource, type NodeInfo, type PodInfo, type ServiceInfo } from '../lib/k8s/metadata.js';
import { podLabelsJson } from './pod-labels.js';

export interface MetadataOptions {
  /** Absent: nothing is looked up (labels are "", missing sides stay missing). */
  readonly metadata: MetadataSource | undefined;
  /** recordContents.podLabels. */
  readonly podLabels: boolean;
  /** flowCollector.includeK8sUIDs. */
  readonly includeK8sUIDs: boolean;
}

/** An address as latin1 bytes (4 or 16 characters) → canonical text; "" for none. */
export function addressText(bytes: string): string {
  const b = Buffer.from(bytes, 'latin1');
  return b.length === 4 ? formatIpv4(b, 0) : b.length === 16 ? formatIpv6(b, 0) : '';
}

/** A UID's text ("8d0f2c1a-9b7e-4d3c-…") as its 16 bytes in latin1; "" when it is not a UUID. */
export function uidBytes(uid: string): string {
  const hex = uid.replaceAll('-', '');
  return /^[0-9a-fA-F]{32}$/.test(hex) ? Buffer.from(hex, 'hex').toString('latin1') : '';
}

export function podAt(options: MetadataOptions, address: string, timeMs: number): PodInfo | undefined {
  const ip = addressText(address);
  return ip === '' || options.metadata === undefined ? undefined : options.metadata.podByIp(ip, timeMs);
}

export function nodeNamed(options: MetadataOptions, name: string): NodeInfo | undefined {
  return name === '' || options.metadata === undefined ? undefined : options.metadata.nodeByName(name);
}

/** The Service of a destinationServicePortName ("namespace/name:port"), cut at ':' as Antrea does. */
export function serviceOfPortName(options: MetadataOptions, portName: string): ServiceInfo | undefined {
  if (portName === '' || options.metadata === undefined) return undefined;
  const serviceName = portName.split(':')[0]!;
  const slash = serviceName.indexOf('/');
  return slash < 0 ? undefined : options.metadata.serviceByName(serviceName.slice(0, slash), serviceName.slice(slash + 1));
}

/** A side's labels JSON: looked up only for a side that names a Pod (name and namespace), and only when wanted. */
export function labelsOf(options: MetadataOptions, podName: string, podNamespace: string, address: string, timeMs: number): string {
  if (!options.podLabels || podName === '' || podNamespace === '') return '';
  return podLabelsJson(podAt(options, address, timeMs));
}
