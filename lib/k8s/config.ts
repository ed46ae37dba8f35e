// The `kubernetes` configuration section: where Kubernetes metadata comes from. Its own section rather
// than Antrea's keys, since Antrea's FlowAggregator has none: it always runs in the cluster, reads the
// cluster identity from kube-system, and waits 30 s for its informers.
//   informers  Pod, Node and Service informers on the API server (in a Pod, or from a kubeconfig)
//   inventory  a file of Pods, Nodes and Services, outside a cluster
//   none       no metadata: records keep what the exporters sent
import { z } from 'zod';
import { duration } from '../config/types.js';

export const kubernetesSection = z
  .strictObject({
    enable: z.union([z.literal('auto'), z.boolean()]).default('auto').describe('auto: informers when running in a Pod (KUBERNETES_SERVICE_HOST is set) or when `kubeconfig` is given.'),
    kubeconfig: z.string().min(1).optional().describe('A kubeconfig file; without it, the library\'s default chain (KUBECONFIG, ~/.kube/config, in-cluster).'),
    antreaNamespace: z.string().min(1).default('kube-system').describe('Namespace of the antrea-cluster-identity ConfigMap.'),
    syncTimeout: duration.default(30_000).describe('How long start-up waits for the first lists of Pods, Nodes and Services (Antrea: 30 s); it then goes on without.'),
    inventory: z.string().min(1).optional().describe('An inventory file (YAML or JSON) serving the lookups instead of the API server.'),
    deletedRetention: duration.default(5 * 60_000).describe('How long deleted objects stay findable (Antrea: 5 minutes). Longer helps a processor that lags behind.'),
    clockSkewTolerance: duration.default(5000).describe('How far a flow\'s start may lie outside a Pod\'s lifetime and still match it (records carry whole seconds).'),
  })
  .superRefine((c, ctx) => {
    if (c.inventory !== undefined && c.enable === true) {
      ctx.addIssue({ code: 'custom', path: ['enable'], message: 'enable: true asks for the API server, and inventory for a file: set one of them' });
    }
    if (c.inventory !== undefined && c.kubeconfig !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['kubeconfig'], message: 'kubeconfig is for the API server, but inventory is set: the file would be the source; set one of them' });
    }
    if (c.syncTimeout <= 0) ctx.addIssue({ code: 'custom', path: ['syncTimeout'], message: 'syncTimeout must be positive' });
  })
  .prefault({});

export type KubernetesConfig = z.output<typeof kubernetesSection>;

export type MetadataSourceKind = 'informers' | 'inventory' | 'none';

export function resolveSourceKind(c: KubernetesConfig, env: NodeJS.ProcessEnv = process.env): MetadataSourceKind {
  if (c.inventory !== undefined) return c.enable === false ? 'none' : 'inventory';
  if (c.enable === 'auto') return env.KUBERNETES_SERVICE_HOST !== undefined || c.kubeconfig !== undefined ? 'informers' : 'none';
  return c.enable ? 'informers' : 'none';
}
