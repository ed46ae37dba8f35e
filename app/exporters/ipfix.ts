// The IPFIX exporter as the CLI knows it: the flowCollector section, and how to build the exporter from
// the service configuration (reading the Kubernetes API only when the `kubernetes` section has one).
import { resolveSourceKind } from '../../lib/k8s/config.js';
import type { ServiceConfig } from '../service-config.js';
import type { ExporterModule } from './registry.js';
import { IpfixExporter } from '../../exporters/ipfix/index.js';

export const ipfixExporterModule: ExporterModule<ServiceConfig> = {
  kind: 'ipfix',
  section: 'flowCollector',
  enabled: (c) => c.flowCollector.enable,
  create(c, deps) {
    const kube = c.kubernetes;
    const k8s = resolveSourceKind(kube) === 'informers'
      ? import('../../exporters/ipfix/k8s.js').then((m) => m.clusterReads(kube))
      : undefined;
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
