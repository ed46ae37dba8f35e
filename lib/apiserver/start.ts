// Starts the API server as the apiServer section says. https (the default, as Antrea): the serving
// certificate (certificate.ts), a new loopback token written to its file, and the guard that accepts it
// and, when delegation is on, asks Kubernetes about every other token. http: no TLS and no guard, on
// 127.0.0.1 unless bindAddress says otherwise (a warning then says that anyone who reaches the port
// reads every flow).
import type { KubeConfig } from '@kubernetes/client-node';
import { type ApiServerConfig, bindHost, loopbackTokenFile } from '../telemetry/config.js';
import type { TelemetryServer } from '../telemetry/http.js';
import type { Logger } from '../telemetry/logger.js';
import { FlowaggError } from '../errors.js';
import { servingCertificate } from './certificate.js';
import { Delegation } from './delegation.js';
import { API_LISTEN } from './errors.js';
import { apiGuard } from './guard.js';
import { isLoopbackHost, localUrl } from './local-url.js';
import { newLoopbackToken, writeLoopbackToken } from './loopback-token.js';
import { parseCipherSuites, parseMinVersion } from './tls-settings.js';

export interface ApiServerDeps {
  readonly logger: Logger;
  /** kubernetes.kubeconfig: where delegated reviews go (else the in-cluster service account). */
  readonly kubeconfig?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Tests: the API to delegate to, instead of loading a kubeconfig. */
  readonly kubeConfig?: KubeConfig;
}

export interface RunningApiServer {
  readonly port: number;
  /** How a client on this machine reaches it. */
  readonly url: string;
  /** The loopback token (also the log API's token). */
  readonly token: string;
  /** The CA of a self-signed certificate, for local clients to verify the server with. */
  readonly ca?: string;
  close(): Promise<void>;
}

/** Whether bearer tokens go to Kubernetes: asked for, or (auto) in a Pod or with a kubeconfig. */
function delegates(section: ApiServerConfig, kubeconfig: string | undefined, env: NodeJS.ProcessEnv): boolean {
  if (section.protocol === 'http') return false;
  return section.delegateAuth === 'auto' ? env.KUBERNETES_SERVICE_HOST !== undefined || kubeconfig !== undefined : section.delegateAuth;
}

/** The reviews go through @kubernetes/client-node, loaded only here: a service that does not delegate never pays for it. */
async function kubernetesDelegation(deps: ApiServerDeps): Promise<Delegation> {
  const [{ kubernetesReviewer }, { loadKubeConfig }] = await Promise.all([import('./kubernetes-reviews.js'), import('../k8s/client.js')]);
  return new Delegation(kubernetesReviewer(deps.kubeConfig ?? loadKubeConfig(deps.kubeconfig === undefined ? {} : { kubeconfig: deps.kubeconfig })));
}

export async function startApiServer(http: TelemetryServer, section: ApiServerConfig, deps: ApiServerDeps): Promise<RunningApiServer> {
  const { logger } = deps;
  const env = deps.env ?? process.env;
  const host = bindHost(section);
  const token = newLoopbackToken();
  if (section.protocol === 'http') {
    const port = await listen(http, { port: section.apiPort, host }, section);
    if (host === undefined || !isLoopbackHost(host)) {
      logger.warn({ bindAddress: host ?? '' }, `the API server speaks plain HTTP without authentication on ${host ?? 'every address'}: anyone who reaches the port reads every flow (apiServer.protocol https authenticates)`);
    }
    logger.info({ url: localUrl('http', host, port) }, 'API server: plain HTTP, no authentication');
    return { port, url: localUrl('http', host, port), token, close: () => http.close() };
  }
  const certificate = await servingCertificate(section, logger);
  const tokenFile = loopbackTokenFile(section, env);
  const delegation = delegates(section, deps.kubeconfig, env) ? await kubernetesDelegation(deps) : undefined;
  const suites = parseCipherSuites(section.tlsCipherSuites);
  const minVersion = parseMinVersion(section.tlsMinVersion);
  const tls = { cert: certificate.cert, key: certificate.key, minVersion: minVersion.ok ? minVersion.value : 'TLSv1.2', ...(suites.ok && suites.value !== undefined && { ciphers: suites.value }) } as const;
  const unwatch = certificate.watch((pair) => {
    http.setSecureContext({ ...tls, ...pair });
    logger.info('API server certificate files changed: new connections get the new certificate');
  });
  let removeToken = () => {};
  let port: number;
  try {
    // Written before the server answers, so that a client that sees it up finds the token.
    removeToken = writeLoopbackToken(tokenFile, token);
    port = await listen(http, { port: section.apiPort, host, tls, guard: apiGuard({ loopbackToken: token, ...(delegation && { delegation }) }) }, section);
  } catch (err) {
    unwatch();
    removeToken();
    throw err;
  }
  logger.info(
    { url: localUrl('https', host, port), loopbackTokenFile: tokenFile, certificate: section.certFile ?? 'self-signed (localhost, 127.0.0.1, ::1)', delegated: delegation !== undefined },
    delegation === undefined ? 'API server: HTTPS; accepts the loopback token only' : 'API server: HTTPS; accepts the loopback token, and other tokens as Kubernetes reviews them',
  );
  return {
    port,
    url: localUrl('https', host, port),
    token,
    ...(certificate.ca !== undefined && { ca: certificate.ca }),
    async close() {
      unwatch();
      removeToken();
      await http.close();
    },
  };
}

async function listen(http: TelemetryServer, opts: Parameters<TelemetryServer['listen']>[0], section: ApiServerConfig): Promise<number> {
  try {
    return await http.listen(opts);
  } catch (err) {
    const where = `${opts.host ?? 'every address'} port ${section.apiPort}`;
    throw new FlowaggError(API_LISTEN, `the API server cannot listen on ${where}: ${(err as Error).message} (set apiServer.apiPort or apiServer.bindAddress)`, { cause: err, context: { port: section.apiPort, host: opts.host } });
  }
}
