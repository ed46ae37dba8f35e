// What the IPFIX exporter reads from the Kubernetes API (when the `kubernetes` section says there is
// one): the TLS Secrets named in flowCollector.tls, in the Pod's namespace (POD_NAMESPACE) as Antrea
// mounts them, and the cluster UUID (ConfigMap antrea-cluster-identity in Antrea's namespace) for
// clusterId and the observation domain. One read at start: the exporter needs no informers.
// Loaded only then: @kubernetes/client-node takes seconds to import.
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfig } from '../../lib/k8s/client.js';
import { CLUSTER_IDENTITY_CONFIGMAP, CLUSTER_IDENTITY_KEY } from '../../lib/k8s/cluster-identity.js';
import type { KubernetesConfig } from '../../lib/k8s/config.js';
import type { SecretReader } from './tls-material.js';

export interface KubernetesReads {
  readonly readSecret: SecretReader;
  readonly clusterUuid: () => Promise<string | undefined>;
}

/** The reads of the cluster the `kubernetes` section names (its kubeconfig, else the default chain). */
export function clusterReads(kube: KubernetesConfig): Promise<KubernetesReads> {
  return kubernetesReads(loadKubeConfig(kube.kubeconfig === undefined ? {} : { kubeconfig: kube.kubeconfig }), kube.antreaNamespace);
}

export async function kubernetesReads(kubeConfig: KubeConfig, antreaNamespace: string, namespace = process.env.POD_NAMESPACE || 'flow-aggregator'): Promise<KubernetesReads> {
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
        const cm = await api.readNamespacedConfigMap({ name: CLUSTER_IDENTITY_CONFIGMAP, namespace: antreaNamespace });
        return cm.data?.[CLUSTER_IDENTITY_KEY];
      } catch (err) {
        if (absent(err)) return undefined;
        throw err;
      }
    },
  };
}
