// The pure core of Kubernetes metadata: a stream of object events in, lookups out. No I/O and no clock:
// events carry their times, and expiry runs when the caller says what time it is, so a test (or the
// inventory, which keeps history for replays and never expires it) decides.
import type { MetadataLookups, NodeInfo, PodInfo, ServiceInfo } from '../metadata.js';
import { ipKey } from '../ip.js';
import { type MetadataEvent, type ObjectKind, objectId, objectName } from './events.js';
import { TimedIndex } from './timed-index.js';

export interface StoreOptions {
  /** How long deleted objects stay findable (Antrea: 5 minutes). */
  readonly deletedRetentionMs: number;
  /** How far a lookup time may lie outside a Pod's lifetime and still match it. */
  readonly clockSkewToleranceMs: number;
}

export const DEFAULT_STORE_OPTIONS: StoreOptions = { deletedRetentionMs: 5 * 60_000, clockSkewToleranceMs: 5000 };

export interface StoreCounts {
  readonly live: number;
  readonly deleted: number;
}

export class MetadataStore implements MetadataLookups {
  readonly #pods: TimedIndex<PodInfo>;
  readonly #nodes: TimedIndex<NodeInfo>;
  readonly #services: TimedIndex<ServiceInfo>;
  #clusterUuid: string | undefined;
  readonly #tolerance: number;
  /** Pod lookups answered and missed, for the source's metrics (plain numbers: this is the hot path). */
  podHits = 0;
  podMisses = 0;

  constructor(opts: StoreOptions = DEFAULT_STORE_OPTIONS) {
    this.#pods = new TimedIndex(opts.deletedRetentionMs);
    this.#nodes = new TimedIndex(opts.deletedRetentionMs);
    this.#services = new TimedIndex(opts.deletedRetentionMs);
    this.#tolerance = opts.clockSkewToleranceMs;
  }

  apply(event: MetadataEvent): void {
    if (event.type === 'clusterUuid') {
      this.#clusterUuid = event.uuid;
      return;
    }
    const o = event.object;
    const id = objectId(o);
    if (event.type === 'delete') {
      this.#index(o.kind).delete(id, event.timeMs);
      return;
    }
    switch (o.kind) {
      case 'Pod':
        if (o.hostNetwork) return;
        this.#pods.upsert(id, objectName(o), o.ips.map(ipKey), o.info, o.createdMs, event.timeMs);
        return;
      case 'Node':
        this.#nodes.upsert(id, objectName(o), [o.info.name], o.info, -Infinity, event.timeMs);
        return;
      case 'Service':
        this.#services.upsert(id, objectName(o), [objectName(o)], o.info, -Infinity, event.timeMs);
        return;
    }
  }

  /** Forgets objects deleted longer than the retention before `nowMs`. */
  expire(nowMs: number): void {
    this.#pods.expire(nowMs);
    this.#nodes.expire(nowMs);
    this.#services.expire(nowMs);
  }

  counts(kind: ObjectKind): StoreCounts {
    const index = this.#index(kind);
    return { live: index.live, deleted: index.deleted };
  }

  podByIp(ip: string, timeMs: number): PodInfo | undefined {
    return this.#countLookup(this.#pods.at(ipKey(ip), timeMs, this.#tolerance));
  }

  podByIpv4(address: number, timeMs: number): PodInfo | undefined {
    return this.#countLookup(this.#pods.at(address, timeMs, this.#tolerance));
  }

  nodeByName(name: string): NodeInfo | undefined {
    return this.#nodes.latest(name);
  }

  serviceByName(namespace: string, name: string): ServiceInfo | undefined {
    return this.#services.latest(`${namespace}/${name}`);
  }

  clusterUuid(): string | undefined {
    return this.#clusterUuid;
  }

  #countLookup(pod: PodInfo | undefined): PodInfo | undefined {
    if (pod === undefined) this.podMisses++;
    else this.podHits++;
    return pod;
  }

  #index(kind: ObjectKind): TimedIndex<unknown> {
    return kind === 'Pod' ? this.#pods : kind === 'Node' ? this.#nodes : this.#services;
  }
}
