// Kubernetes metadata from the API server: Pod, Node and Service informers and one on Antrea's cluster
// identity ConfigMap feed one MetadataStore, stamped with the time each change was seen. Deleted
// objects expire on a timer. ready() waits for the first lists up to the sync timeout, then lets the
// caller go on without them (as Antrea's FlowAggregator does), while /readyz keeps saying what is missing.
import { CoreV1Api, type KubeConfig, type KubernetesListObject, type KubernetesObject, type V1ConfigMap, type V1Node, type V1Pod, type V1Service } from '@kubernetes/client-node';
import { componentLogger } from '../../telemetry/logger.js';
import { CLUSTER_IDENTITY_CONFIGMAP } from '../cluster-identity.js';
import type { MetadataSource } from '../metadata.js';
import type { KubeObjectRecord } from '../store/events.js';
import { DEFAULT_STORE_OPTIONS, MetadataStore, type StoreCounts, type StoreOptions } from '../store/metadata-store.js';
import { StoreLookups } from '../store/store-lookups.js';
import { clusterUuidOf, nodeObject, podObject, serviceObject, trimPod, trimToMeta } from './convert.js';
import { KindInformer, type KindSpec, type KindStats, type RestartPolicy } from './kind-informer.js';
import { registerStore } from './metrics.js';

export interface InformerSourceOptions {
  readonly kubeConfig: KubeConfig;
  /** Namespace of the antrea-cluster-identity ConfigMap. */
  readonly antreaNamespace: string;
  readonly syncTimeoutMs: number;
  readonly store?: StoreOptions;
  readonly restart?: RestartPolicy;
  /** How often deleted objects past their retention are dropped. */
  readonly expiryIntervalMs?: number;
  readonly now?: () => number;
}

const DEFAULT_RESTART: RestartPolicy = { initialMs: 1000, maxMs: 30_000 };

export class InformerMetadataSource extends StoreLookups implements MetadataSource {
  readonly #informers: KindInformer<KubernetesObject>[];
  readonly #ready: Promise<void>;
  readonly #expiry: NodeJS.Timeout;
  readonly #unregister: () => void;
  readonly #log = componentLogger('k8s');

  constructor(opts: InformerSourceOptions) {
    const now = opts.now ?? Date.now;
    const store = new MetadataStore(opts.store ?? DEFAULT_STORE_OPTIONS);
    super(store);
    this.#unregister = registerStore(store);
    const api = opts.kubeConfig.makeApiClient(CoreV1Api);
    const ns = opts.antreaNamespace;
    const identitySelector = `metadata.name=${CLUSTER_IDENTITY_CONFIGMAP}`;
    // Pods, Nodes and Services: each change into the store, after cutting the cached object down.
    const objects = <T extends KubernetesObject>(kind: string, path: string, list: () => Promise<KubernetesListObject<T>>, convert: (o: T, nowMs: number) => KubeObjectRecord, trim: (o: T) => void) =>
      spec<T>({
        kind,
        path,
        list,
        onUpsert: (o, t) => {
          trim(o);
          store.apply({ type: 'upsert', object: convert(o, t), timeMs: t });
        },
        onDelete: (o, t) => store.apply({ type: 'delete', object: convert(o, t), timeMs: t }),
      });
    const specs = [
      objects<V1Pod>('pods', '/api/v1/pods', () => api.listPodForAllNamespaces(), podObject, trimPod),
      objects<V1Node>('nodes', '/api/v1/nodes', () => api.listNode(), nodeObject, trimToMeta),
      objects<V1Service>('services', '/api/v1/services', () => api.listServiceForAllNamespaces(), serviceObject, trimToMeta),
      spec<V1ConfigMap>({
        kind: 'cluster-identity',
        path: `/api/v1/namespaces/${ns}/configmaps`,
        fieldSelector: identitySelector,
        list: () => api.listNamespacedConfigMap({ namespace: ns, fieldSelector: identitySelector }),
        onUpsert: (o) => this.#clusterIdentity(clusterUuidOf(o), ns),
        onDelete: () => this.#clusterIdentity(undefined, ns),
      }),
    ];
    const policy = opts.restart ?? DEFAULT_RESTART;
    this.#informers = specs.map((s) => new KindInformer(opts.kubeConfig, s, { policy, now, log: this.#log }));
    for (const informer of this.#informers) informer.start();
    this.#ready = this.#waitForSync(opts.syncTimeoutMs);
    const interval = opts.expiryIntervalMs ?? Math.min(10_000, (opts.store ?? DEFAULT_STORE_OPTIONS).deletedRetentionMs);
    this.#expiry = setInterval(() => store.expire(now()), interval);
    this.#expiry.unref();
  }

  ready(): Promise<void> {
    return this.#ready;
  }

  readiness(): { ready: boolean; detail?: string } {
    const stats = this.stats();
    const unsynced = Object.keys(stats).filter((k) => !stats[k]!.synced);
    const failing = Object.entries(stats).filter(([, s]) => s.failing !== undefined).map(([k, s]) => `${k}: ${s.failing}`);
    const parts = [
      ...(unsynced.length > 0 ? [`waiting for the first list of ${unsynced.join(', ')}`] : []),
      ...(failing.length > 0 ? [`failing, retrying: ${failing.join('; ')}`] : []),
    ];
    return { ready: unsynced.length === 0, ...(parts.length > 0 && { detail: parts.join('; ') }) };
  }

  /** Objects held per kind, live and deleted-but-kept. */
  objectCounts(): Record<'Pod' | 'Node' | 'Service', StoreCounts> {
    return { Pod: this.store.counts('Pod'), Node: this.store.counts('Node'), Service: this.store.counts('Service') };
  }

  /** Per kind: synced, last sync, watch restarts, relists, errors. */
  stats(): Record<string, KindStats> {
    return Object.fromEntries(this.#informers.map((i) => [i.kind, i.stats()]));
  }

  async close(): Promise<void> {
    clearInterval(this.#expiry);
    await Promise.all(this.#informers.map((i) => i.stop()));
    this.#unregister();
  }

  async #waitForSync(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const synced = Promise.all(this.#informers.map((i) => i.whenSynced())).then(() => 'synced' as const);
    const outcome = await Promise.race([synced, timedOut]);
    clearTimeout(timer);
    if (outcome === 'synced') this.#log.info({ clusterUuid: this.clusterUuid() }, 'Kubernetes metadata synced');
    else this.#log.warn({ timeoutMs, detail: this.readiness().detail }, 'Kubernetes metadata not synced within the sync timeout; going on with what is known');
  }

  #clusterIdentity(uuid: string | 'invalid' | undefined, namespace: string): void {
    const where = `${namespace}/${CLUSTER_IDENTITY_CONFIGMAP}`;
    if (uuid === 'invalid') {
      this.#log.warn({ configMap: where }, 'the cluster identity ConfigMap holds no valid UUID; ignoring it');
      this.store.apply({ type: 'clusterUuid', uuid: undefined });
      return;
    }
    if (uuid !== this.store.clusterUuid()) this.#log.info({ configMap: where, clusterUuid: uuid }, uuid === undefined ? 'cluster UUID gone' : 'cluster UUID');
    this.store.apply({ type: 'clusterUuid', uuid });
  }
}

/** Erases a spec's object type, so that the informers of every kind sit in one list. */
function spec<T extends KubernetesObject>(s: KindSpec<T>): KindSpec<KubernetesObject> {
  return s as unknown as KindSpec<KubernetesObject>;
}
