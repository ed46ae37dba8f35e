// Opens the Kubernetes metadata source the `kubernetes` configuration section asks for: informers on
// the API server, an inventory file, or none. The informers, and @kubernetes/client-node with them (120 MB
// of a service's memory), are loaded only when asked for.
import type { KubeConfig } from '@kubernetes/client-node';
import { type KubernetesConfig, resolveSourceKind } from './config.js';
import { InventoryMetadataSource } from './inventory.js';
import type { MetadataSource } from './metadata.js';

export { type KubernetesConfig, kubernetesSection } from './config.js';
export { InventoryMetadataSource } from './inventory.js';
export { type MetadataLookups, type MetadataSource, type NodeInfo, type PodInfo, type ServiceInfo, serviceOfPortName } from './metadata.js';
export { observationDomainIdOf } from './cluster-identity.js';

/** undefined when the configuration asks for no metadata (outside a cluster without an inventory). */
export async function openMetadataSource(config: KubernetesConfig, deps: { env?: NodeJS.ProcessEnv; kubeConfig?: KubeConfig } = {}): Promise<MetadataSource | undefined> {
  const kind = resolveSourceKind(config, deps.env ?? process.env);
  const store = { deletedRetentionMs: config.deletedRetention, clockSkewToleranceMs: config.clockSkewTolerance };
  switch (kind) {
    case 'none':
      return undefined;
    case 'inventory':
      return InventoryMetadataSource.load(config.inventory!, { clockSkewToleranceMs: config.clockSkewTolerance });
    case 'informers': {
      const [{ InformerMetadataSource }, { loadKubeConfig }] = await Promise.all([import('./informers/source.js'), import('./client.js')]);
      return new InformerMetadataSource({
        kubeConfig: deps.kubeConfig ?? loadKubeConfig(config.kubeconfig === undefined ? {} : { kubeconfig: config.kubeconfig }),
        antreaNamespace: config.antreaNamespace,
        syncTimeoutMs: config.syncTimeout,
        store,
      });
    }
  }
}
