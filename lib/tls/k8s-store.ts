// The Kubernetes certificate store, with Antrea's object names (reference §6.5) so that unmodified
// agents find what they read: Secret flow-aggregator-ca-tls holds the CA (shared by every replica),
// ConfigMap flow-aggregator-ca publishes its certificate as ca.crt, Secret flow-aggregator-client-tls
// holds the agents' client certificate. The server certificate stays in this replica's memory.
// Writes carry the resourceVersion that was read (create when nothing was), so concurrent replicas
// get a 409 instead of overwriting each other, and re-read.
// watch() reports changes to the three objects that this replica did not make or see itself (another
// replica rotated the CA, someone deleted the ConfigMap), so that it follows within seconds rather than
// at the next periodic check, as Antrea's informers do.
import { ApiException, CoreV1Api, type KubeConfig, ListWatch, type V1ConfigMap, type V1Secret } from '@kubernetes/client-node';
import { FlowaggError, errorMessage } from '../errors.js';
import { StoppableWatch } from '../k8s/stoppable-watch.js';
import { componentLogger } from '../telemetry/logger.js';
import { TLS_CONFLICT, TLS_STORE } from './errors.js';
import type { KeyPair } from './issue.js';
import type { CertificateStore, Slot, Stored } from './provider.js';

export const CA_SECRET = 'flow-aggregator-ca-tls';
export const CLIENT_SECRET = 'flow-aggregator-client-tls';
export const CA_CONFIGMAP = 'flow-aggregator-ca';
export const LABELS: Readonly<Record<string, string>> = { app: 'flow-aggregator' };

const SECRETS = { ca: CA_SECRET, client: CLIENT_SECRET } as const;
const ABSENT: Stored = { pair: undefined, version: undefined };
const PUBLISH_ATTEMPTS = 5;
const WATCH_RESTART_MS = 5000;

type Kind = 'secrets' | 'configmaps';

export class KubernetesCertificateStore implements CertificateStore {
  private server: Stored = ABSENT;
  private readonly api: CoreV1Api;
  /** resourceVersion of each object as this replica last read or wrote it (absent: not there). */
  private readonly seen = new Map<string, string>();
  private readonly log = componentLogger('ingest-tls');

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly namespace: string,
  ) {
    this.api = kubeConfig.makeApiClient(CoreV1Api);
  }

  async load(slot: Slot): Promise<Stored> {
    if (slot === 'server') return this.server;
    const name = SECRETS[slot];
    const secret = await this.read('secrets', name, () => this.api.readNamespacedSecret({ name, namespace: this.namespace }));
    if (secret === undefined) return ABSENT;
    const cert = decode(secret.data?.['tls.crt']);
    const key = decode(secret.data?.['tls.key']);
    return { pair: cert !== undefined && key !== undefined ? { cert, key } : undefined, version: secret.metadata?.resourceVersion ?? '' };
  }

  async save(slot: Slot, pair: KeyPair, previous: Stored): Promise<'saved' | 'conflict'> {
    if (slot === 'server') {
      this.server = { pair, version: 'memory' };
      return 'saved';
    }
    const name = SECRETS[slot];
    const body: V1Secret = {
      metadata: { name, namespace: this.namespace, labels: { ...LABELS }, ...(previous.version !== undefined && { resourceVersion: previous.version }) },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': encode(pair.cert), 'tls.key': encode(pair.key) },
    };
    return previous.version === undefined
      ? this.write('secrets', name, 'create', () => this.api.createNamespacedSecret({ namespace: this.namespace, body }))
      : this.write('secrets', name, 'update', () => this.api.replaceNamespacedSecret({ name, namespace: this.namespace, body }));
  }

  async publishCA(caCert: string): Promise<void> {
    const name = CA_CONFIGMAP;
    for (let attempt = 1; attempt <= PUBLISH_ATTEMPTS; attempt++) {
      const current = await this.read('configmaps', name, () => this.api.readNamespacedConfigMap({ name, namespace: this.namespace }));
      if (current?.data?.['ca.crt'] === caCert && hasLabels(current)) return;
      // Other keys and labels someone added are kept; only ca.crt and our label are ours.
      const body: V1ConfigMap = {
        metadata: { ...current?.metadata, name, namespace: this.namespace, labels: { ...current?.metadata?.labels, ...LABELS } },
        data: { ...current?.data, 'ca.crt': caCert },
      };
      const result = current === undefined
        ? await this.write('configmaps', name, 'create', () => this.api.createNamespacedConfigMap({ namespace: this.namespace, body }))
        : await this.write('configmaps', name, 'update', () => this.api.replaceNamespacedConfigMap({ name, namespace: this.namespace, body }));
      if (result === 'saved') return;
    }
    throw new FlowaggError(TLS_CONFLICT, `gave up publishing ConfigMap ${name} after ${PUBLISH_ATTEMPTS} conflicting writes`, {
      retriable: true,
      context: { namespace: this.namespace },
    });
  }

  /** Calls onChange when one of the three objects changes in a way this replica has not seen; returns a stop function. */
  watch(onChange: () => void): () => void {
    const watch = new StoppableWatch(this.kubeConfig);
    let stopped = false;
    const targets: [Kind, string][] = [['secrets', CA_SECRET], ['secrets', CLIENT_SECRET], ['configmaps', CA_CONFIGMAP]];
    const informers = targets.map(([kind, name]) => {
      const fieldSelector = `metadata.name=${name}`;
      const list = () => kind === 'secrets'
        ? this.api.listNamespacedSecret({ namespace: this.namespace, fieldSelector })
        : this.api.listNamespacedConfigMap({ namespace: this.namespace, fieldSelector });
      const informer = new ListWatch<V1Secret | V1ConfigMap>(`/api/v1/namespaces/${this.namespace}/${kind}`, watch, list, false, undefined, fieldSelector);
      const changed = (obj: V1Secret | V1ConfigMap, deleted = false) => {
        if (deleted ? this.seen.has(`${kind}/${name}`) : this.seen.get(`${kind}/${name}`) !== obj.metadata?.resourceVersion) onChange();
      };
      informer.on('add', (o) => changed(o));
      informer.on('update', (o) => changed(o));
      informer.on('delete', (o) => changed(o, true));
      // A stopped ListWatch does not restart itself; restart it as the library's examples do.
      informer.on('error', (err) => {
        if (stopped) return;
        this.log.warn({ kind, name, err: errorMessage(err) }, 'watch failed; restarting');
        setTimeout(() => void (stopped || informer.start()), WATCH_RESTART_MS).unref();
      });
      void informer.start();
      return informer;
    });
    return () => {
      stopped = true;
      watch.stop();
      for (const informer of informers) void informer.stop();
    };
  }

  /** A read; undefined when the object does not exist. */
  private async read<T extends V1Secret | V1ConfigMap>(kind: Kind, name: string, fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return this.remember(kind, name, await fn());
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return void this.remember(kind, name, undefined);
      throw this.failure(`read ${kind}/${name}`, err);
    }
  }

  /** A create or conditional update; 'conflict' when another writer changed (or deleted) the object first. */
  private async write(kind: Kind, name: string, verb: string, fn: () => Promise<V1Secret | V1ConfigMap>): Promise<'saved' | 'conflict'> {
    try {
      this.remember(kind, name, await fn());
      return 'saved';
    } catch (err) {
      // 404 on update: deleted since it was read. On create it means the namespace is missing: a failure.
      if (err instanceof ApiException && (err.code === 409 || (err.code === 404 && verb === 'update'))) return 'conflict';
      throw this.failure(`${verb} ${kind}/${name}`, err);
    }
  }

  private remember<T extends V1Secret | V1ConfigMap>(kind: Kind, name: string, obj: T | undefined): T | undefined {
    if (obj === undefined) this.seen.delete(`${kind}/${name}`);
    else this.seen.set(`${kind}/${name}`, obj.metadata?.resourceVersion ?? '');
    return obj;
  }

  private failure(what: string, err: unknown): FlowaggError {
    const status = err instanceof ApiException ? err.code : undefined;
    const detail = err instanceof ApiException ? `HTTP ${err.code}${statusMessage(err.body)}` : errorMessage(err);
    return new FlowaggError(TLS_STORE, `cannot ${what} in namespace ${this.namespace}: ${detail}`, {
      retriable: true,
      cause: err,
      context: { namespace: this.namespace, status },
    });
  }
}

/** The message of a Kubernetes Status body (RBAC denials say who may not do what). */
function statusMessage(body: unknown): string {
  try {
    const status = (typeof body === 'string' ? JSON.parse(body) : body) as { message?: unknown } | undefined;
    return typeof status?.message === 'string' ? `: ${status.message}` : '';
  } catch {
    return '';
  }
}

function hasLabels(obj: V1ConfigMap): boolean {
  return Object.entries(LABELS).every(([k, v]) => obj.metadata?.labels?.[k] === v);
}

function encode(pem: string): string {
  return Buffer.from(pem, 'utf8').toString('base64');
}

function decode(b64: string | undefined): string | undefined {
  return b64 === undefined ? undefined : Buffer.from(b64, 'base64').toString('utf8');
}
