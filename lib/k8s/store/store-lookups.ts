// The lookups of a metadata source that answers from a MetadataStore: both sources do.
import type { MetadataLookups, NodeInfo, PodInfo, ServiceInfo } from '../metadata.js';
import type { MetadataStore } from './metadata-store.js';

export abstract class StoreLookups implements MetadataLookups {
  constructor(protected readonly store: MetadataStore) {}

  podByIp(ip: string, timeMs: number): PodInfo | undefined {
    return this.store.podByIp(ip, timeMs);
  }

  podByIpv4(address: number, timeMs: number): PodInfo | undefined {
    return this.store.podByIpv4(address, timeMs);
  }

  nodeByName(name: string): NodeInfo | undefined {
    return this.store.nodeByName(name);
  }

  serviceByName(namespace: string, name: string): ServiceInfo | undefined {
    return this.store.serviceByName(namespace, name);
  }

  clusterUuid(): string | undefined {
    return this.store.clusterUuid();
  }
}
