// Where each Node's connections come from. Against a collector on this host's IPv4 loopback, every Node
// binds an address of its own in 127.0.0.0/8 (Linux answers for the whole block), so that the collector
// sees one exporter per Node, as it would in a cluster, and its per-source limits apply per Node.
import { isIPv4 } from 'node:net';

export function isLoopbackIpv4(address: string): boolean {
  return isIPv4(address) && address.startsWith('127.');
}

/** Node i's address: 127.1.0.1, 127.1.0.2, … */
export function loopbackSource(i: number): string {
  const n = i + 1;
  return `127.${1 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
}

/** Whether the Nodes bind addresses of their own against `address` (the collector's, resolved). */
export function bindsLoopback(address: string, platform: NodeJS.Platform = process.platform): boolean {
  return platform === 'linux' && isLoopbackIpv4(address);
}
