// Opens the Kubernetes metadata source the `kubernetes` configuration section asks for: informers on
// the API server, an inventory file, or none.
import { type KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfig } from './client.js';
import { type KubernetesConfig, resolveSourceKind } from './config.js';
import { InformerMetadataSource } from './informers/source.js';
import { InventoryMetadataSource } from './inventory.js';
import { type MetadataSource } from './metadata.js';

export { type KubernetesConfig, kubernetesSection } from './config.js';
export { InformerMetadataSource } from './informers/source.js';
export { InventoryMetadataSource } from './inventory.js';
export { type MetadataLookups, type MetadataSource, type NodeInfo, type PodInfo, type ServiceInfo, serviceOfPortName } from './metadata.js';
export { observationDomainIdOf } from './cluster-identity.js';

/** undefined when the configuration asks for no metadata (outside a cluster without an inventory). */
export function openMetadataSource(config: KubernetesConfig, deps: { env?: NodeJS.ProcessEnv; kubeConfig?: KubeConfig } = {}): MetadataSource | undefined {
  const kind = resolveSourceKind(config, deps.env ?? process.env);
  const store = { deletedRetentionMs: config.deletedRetention, clockSkewToleranceMs: config.clockSkewTolerance };
  switch (kind) {
    case 'none':
      return undefined;
    case 'inventory':
      return InventoryMetadataSource.load(config.inventory!, { clockSkewToleranceMs: config.clockSkewTolerance });
    case 'informers':
      return new InformerMetadataSource({
        kubeConfig: deps.kubeConfig ?? loadKubeConfig(config.kubeconfig === undefined ? {} : { kubeconfig: config.kubeconfig }),
        antreaNamespace: config.antreaNamespace,
        syncTimeoutMs: config.syncTimeout,
        store,
      });
  }
}
