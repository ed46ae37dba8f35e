// Starting the configured certificate source from a service that owns it (ingest, the flow stream service).
// ./index.js is imported only here and only then: the Kubernetes client it may need takes seconds to import.
import type { TlsConfig } from './config.js';
import type { CertificateSource } from './provider.js';

export async function startCertificateSource(config: TlsConfig, flowAggregatorAddress: string): Promise<CertificateSource> {
  const { createCertificateSource } = await import('./index.js');
  const source = createCertificateSource(config, { flowAggregatorAddress });
  await source.start();
  return source;
}
