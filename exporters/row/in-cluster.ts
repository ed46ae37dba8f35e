// The cluster UUID of the clusterUUID column, when the `kubernetes` section says there is a cluster: read
// once from the antrea-cluster-identity ConfigMap (in kubernetes.antreaNamespace), as Antrea's exporters
// do and as the IPFIX exporter reads it. Without a cluster there is none and the column is "".
import { type KubernetesConfig, resolveSourceKind } from '../../lib/k8s/config.js';
import type { ClusterUuidSource } from './cluster-uuid.js';

export function clusterUuidSource(kube: KubernetesConfig): ClusterUuidSource | undefined {
  if (resolveSourceKind(kube) !== 'informers') return undefined;
  // @kubernetes/client-node takes seconds to import: only when there is a cluster.
  return async () => {
    const { clusterReads } = await import('../ipfix/k8s.js');
    const reads = await clusterReads(kube);
    return reads.clusterUuid();
  };
}
