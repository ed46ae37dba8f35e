// The collector's certificates: createCertificateSource(config, deps) picks the source for the
// configured mode (config.ts); the TLS listener uses current(), on('updated') and tlsServerOptions().
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfig } from '../k8s/client.js';
import type { TlsConfig } from './config.js';
import { DirectoryCertificateStore } from './directory-store.js';
import { FilesCertificateSource } from './files-source.js';
import { KubernetesCertificateStore } from './k8s-store.js';
import { type CertificateSource, type CertificateStore, CertificateProvider } from './provider.js';

export { tlsServerOptions } from './server-options.js';
export type { CertificateSource, TlsMaterial } from './provider.js';

export interface TlsDeps {
  /** Antrea's top-level flowAggregatorAddress, used when tls.flowAggregatorAddress is unset. */
  flowAggregatorAddress?: string;
  /** Mode k8s: the API to use; by default loadKubeConfig() (kubeconfig or in-cluster). */
  kubeConfig?: KubeConfig;
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
}

export type TlsMode = NonNullable<TlsConfig['mode']>;

export function resolveMode(config: TlsConfig, env: NodeJS.ProcessEnv = process.env): TlsMode {
  return config.mode ?? (env.KUBERNETES_SERVICE_HOST === undefined ? 'directory' : 'k8s');
}

export function resolveNamespace(config: TlsConfig, env: NodeJS.ProcessEnv = process.env): string {
  return config.namespace ?? (env.POD_NAMESPACE || 'flow-aggregator');
}

/** The server certificate's SANs: the Service DNS name agents dial, flowAggregatorAddress, the extras. */
export function serverNames(config: TlsConfig, namespace: string, flowAggregatorAddress = ''): string[] {
  const address = config.flowAggregatorAddress ?? flowAggregatorAddress;
  return [...new Set([`${config.service}.${namespace}.svc`, ...(address === '' ? [] : [address]), ...config.extraSANs])];
}

/** Where issued certificates are kept: the Kubernetes Secrets, or the directory. */
export function certificateStore(config: TlsConfig, mode: Exclude<TlsMode, 'files'>, namespace: string, deps: TlsDeps = {}): CertificateStore {
  return mode === 'k8s' ? new KubernetesCertificateStore(deps.kubeConfig ?? loadKubeConfig(), namespace) : new DirectoryCertificateStore(config.dir);
}

export function createCertificateSource(config: TlsConfig, deps: TlsDeps = {}): CertificateSource {
  const env = deps.env ?? process.env;
  const mode = resolveMode(config, env);
  if (mode === 'files') {
    return new FilesCertificateSource({ certFile: config.certFile!, keyFile: config.keyFile!, caFile: config.caFile!, checkIntervalMs: config.checkInterval });
  }
  const namespace = resolveNamespace(config, env);
  const store = certificateStore(config, mode, namespace, deps);
  return new CertificateProvider({
    store,
    serverNames: serverNames(config, namespace, deps.flowAggregatorAddress),
    validityMs: config.validity,
    renewBeforeMs: config.renewBefore,
    checkIntervalMs: config.checkInterval,
    ...(deps.now && { now: deps.now }),
  });
}
