// How production code reaches the Kubernetes API: an explicit kubeconfig file when one is configured,
// otherwise the library's default chain (KUBECONFIG, ~/.kube/config, the in-cluster service account,
// and last http://localhost:8080).
// Tests build theirs with kubeConfigFor() from ./testing.ts instead.
import { KubeConfig } from '@kubernetes/client-node';
import { FlowaggError } from '../errors.js';

export const K8S_CONFIG_UNAVAILABLE = 'FLOWAGG_ERR_K8S_CONFIG_UNAVAILABLE';

export interface KubeConfigSource {
  /** Path of a kubeconfig file. */
  kubeconfig?: string;
  /** Use the Pod's service account only (`pathPrefix` relocates /var/run/secrets, for tests). */
  inCluster?: boolean;
  pathPrefix?: string;
}

export function loadKubeConfig(source: KubeConfigSource = {}): KubeConfig {
  const kc = new KubeConfig();
  if (source.inCluster === true && process.env.KUBERNETES_SERVICE_HOST === undefined) {
    throw new FlowaggError(K8S_CONFIG_UNAVAILABLE, 'not running in a Kubernetes Pod: KUBERNETES_SERVICE_HOST is not set');
  }
  try {
    if (source.inCluster === true) kc.loadFromCluster(source.pathPrefix);
    else if (source.kubeconfig !== undefined) kc.loadFromFile(source.kubeconfig);
    else kc.loadFromDefault();
  } catch (err) {
    throw new FlowaggError(K8S_CONFIG_UNAVAILABLE, `cannot load Kubernetes client configuration: ${(err as Error).message}`, {
      cause: err,
      context: { kubeconfig: source.kubeconfig, inCluster: source.inCluster },
    });
  }
  return kc;
}
