// The IPFIX exporter as the CLI knows it: the flowCollector section, and how to build the exporter from
// the service configuration (reading the Kubernetes API only when running in a Pod).
import { loadKubeConfig } from '../../lib/k8s/client.js';
import { type ServiceConfig } from '../../lib/cli/commands/service-config.js';
import { type ExporterModule } from '../registry.js';
import { IpfixExporter } from './index.js';

const inPod = () => process.env.KUBERNETES_SERVICE_HOST !== undefined;

export const ipfixExporterModule: ExporterModule<ServiceConfig> = {
  kind: 'ipfix',
  section: 'flowCollector',
  enabled: (c) => c.flowCollector.enable,
  create(c, deps) {
    const k8s = inPod() ? import('./k8s.js').then((m) => m.kubernetesReads(loadKubeConfig())) : undefined;
    return new IpfixExporter(
      { flowCollector: c.flowCollector, mode: c.mode, clusterID: c.clusterID },
      {
        ...(deps.logger && { logger: deps.logger }),
        ...(k8s && {
          readSecret: async (name: string) => (await k8s).readSecret(name),
          clusterUuid: async () => (await k8s).clusterUuid(),
        }),
      },
    );
  },
};
