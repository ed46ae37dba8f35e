// Antrea's `apiServer` section: the API server of every service (/metrics, /healthz, /livez, /readyz,
// /recordmetrics, /flowrecords, /loglevel, /version and the log API the CLI uses while a service holds
// the embedded log). HTTPS with Antrea's authentication by default (docs/api.md); plain HTTP without
// authentication on request, bound to loopback unless told otherwise.
import { z } from 'zod';
import { port } from '../config/types.js';
import { parseCipherSuites, parseMinVersion } from '../apiserver/tls-settings.js';

/** Where Antrea's FlowAggregator writes its loopback token, and antctl reads it, in the Pod. */
const ANTREA_LOOPBACK_TOKEN_FILE = '/var/run/antrea/apiserver/loopback-client-token';
/** Outside a Pod: beside the other data of the quick start (./data/log, ./data/tls), private to its user. */
const LOCAL_LOOPBACK_TOKEN_FILE = 'data/apiserver/loopback-client-token';

export const apiServerSection = z
  .strictObject({
    apiPort: port.default(10348).describe("The API server's port (Antrea's apiServer port)."),
    protocol: z
      .enum(['https', 'http'])
      .default('https')
      .describe('https: as Antrea, TLS with bearer-token authentication (the loopback token, or delegated to Kubernetes). http: plain HTTP without authentication, for a quick start on one machine (`flowagg run` without a configuration file).'),
    bindAddress: z.string().default('').describe('The address the server binds; "": every address with https, 127.0.0.1 with http.'),
    certFile: z.string().min(1).optional().describe('https: PEM server certificate (chain) to serve; without it a self-signed certificate for localhost, 127.0.0.1 and ::1 is made at start, as Antrea does. Read again every minute: a renewed certificate applies to new connections.'),
    keyFile: z.string().min(1).optional().describe('https: PEM private key of certFile.'),
    loopbackTokenFile: z
      .string()
      .min(1)
      .optional()
      .describe(`https: where the random token written at start goes (mode 0600; clients on this machine, antctl and flowagg get, read it). Default: ${ANTREA_LOOPBACK_TOKEN_FILE} in a Pod (Antrea's path), else ${LOCAL_LOOPBACK_TOKEN_FILE}.`),
    delegateAuth: z
      .union([z.literal('auto'), z.boolean()])
      .default('auto')
      .describe('https: whether bearer tokens other than the loopback token are checked with Kubernetes (TokenReview, then SubjectAccessReview). auto: in a Pod, or when kubernetes.kubeconfig is set.'),
    tlsCipherSuites: z.string().optional().describe("https: comma-separated cipher suites, Go's names as in Antrea (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ...); empty: Node's defaults."),
    tlsMinVersion: z.string().optional().describe('https: the oldest TLS version accepted: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13; empty: VersionTLS12, as Antrea.'),
  })
  .superRefine((c, ctx) => {
    const suites = parseCipherSuites(c.tlsCipherSuites);
    if (!suites.ok) ctx.addIssue({ code: 'custom', path: ['tlsCipherSuites'], message: suites.message });
    const version = parseMinVersion(c.tlsMinVersion);
    if (!version.ok) ctx.addIssue({ code: 'custom', path: ['tlsMinVersion'], message: version.message });
    if ((c.certFile === undefined) !== (c.keyFile === undefined)) {
      const missing = c.certFile === undefined ? 'certFile' : 'keyFile';
      ctx.addIssue({ code: 'custom', path: [missing], message: `${missing} is required with ${missing === 'certFile' ? 'keyFile' : 'certFile'}: give both, or neither for a self-signed certificate` });
    }
    if (c.protocol === 'http') {
      for (const key of ['certFile', 'keyFile', 'loopbackTokenFile'] as const) {
        if (c[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `${key} applies to protocol https; protocol is http (plain, without authentication)` });
      }
      for (const key of ['tlsCipherSuites', 'tlsMinVersion'] as const) {
        if ((c[key] ?? '') !== '') ctx.addIssue({ code: 'custom', path: [key], message: `${key} applies to protocol https; protocol is http (plain, without authentication)` });
      }
      if (c.delegateAuth === true) ctx.addIssue({ code: 'custom', path: ['delegateAuth'], message: 'protocol http has no authentication to delegate: set protocol https, or delegateAuth auto' });
    }
  })
  .prefault({});

export type ApiServerConfig = z.output<typeof apiServerSection>;

/** The address the server binds, with the protocol's default for "". */
export function bindHost(c: ApiServerConfig): string | undefined {
  if (c.bindAddress !== '') return c.bindAddress;
  return c.protocol === 'http' ? '127.0.0.1' : undefined;
}

export function loopbackTokenFile(c: ApiServerConfig, env: NodeJS.ProcessEnv = process.env): string {
  return c.loopbackTokenFile ?? (env.KUBERNETES_SERVICE_HOST === undefined ? LOCAL_LOOPBACK_TOKEN_FILE : ANTREA_LOOPBACK_TOKEN_FILE);
}
