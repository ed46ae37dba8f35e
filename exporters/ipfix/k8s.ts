// What the IPFIX exporter reads from the Kubernetes API when it runs in a Pod: the TLS Secrets named in
// flowCollector.tls (in the Pod's namespace, POD_NAMESPACE, as Antrea mounts them) and the cluster UUID
// (ConfigMap kube-system/antrea-cluster-identity, key uuid) for clusterId and the observation domain.
// Loaded only in a Pod: @kubernetes/client-node takes seconds to import.
import { type KubeConfig } from '@kubernetes/client-node';
import { type SecretReader } from './tls-material.js';

const CLUSTER_IDENTITY = { namespace: 'kube-system', name: 'antrea-cluster-identity', key: 'uuid' };

export interface KubernetesReads {
  readonly readSecret: SecretReader;
  readonly clusterUuid: () => Promise<string | undefined>;
}

export async function kubernetesReads(kubeConfig: KubeConfig, namespace = process.env.POD_NAMESPACE || 'flow-aggregator'): Promise<KubernetesReads> {
  const { ApiException, CoreV1Api } = await import('@kubernetes/client-node');
  const api = kubeConfig.makeApiClient(CoreV1Api);
  const absent = (err: unknown) => err instanceof ApiException && err.code === 404;
  return {
    async readSecret(name) {
      try {
        const secret = await api.readNamespacedSecret({ name, namespace });
        return Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));
      } catch (err) {
        if (absent(err)) return undefined;
        throw err;
      }
    },
    async clusterUuid() {
      try {
        const cm = await api.readNamespacedConfigMap({ name: CLUSTER_IDENTITY.name, namespace: CLUSTER_IDENTITY.namespace });
        return cm.data?.[CLUSTER_IDENTITY.key];
      } catch (err) {
        if (absent(err)) return undefined;
        throw err;
      }
    },
  };
}
