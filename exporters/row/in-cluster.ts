// The cluster UUID when flowagg runs in a Pod: read once from the antrea-cluster-identity ConfigMap, as
// Antrea's exporters do. Outside a cluster there is none and the clusterUUID column is "".
import { loadKubeConfig } from '../../lib/k8s/client.js';
import { type ClusterUuidSource } from './cluster-uuid.js';

export function inClusterUuid(): ClusterUuidSource | undefined {
  if (process.env.KUBERNETES_SERVICE_HOST === undefined) return undefined;
  // @kubernetes/client-node takes seconds to import: only in a Pod.
  return async () => (await (await import('../ipfix/k8s.js')).kubernetesReads(loadKubeConfig())).clusterUuid();
}
