// The `ingest.tls` configuration section: where the collector's certificates come from.
//   k8s        CA in Secret flow-aggregator-ca-tls (shared by replicas), published to agents in
//              ConfigMap flow-aggregator-ca and Secret flow-aggregator-client-tls, as Antrea does.
//   directory  outside a cluster: ca, server and client certificates and keys kept in `dir`.
//   files      certificates issued by someone else (cert-manager, a corporate CA): read, never issued.
// Without `mode`, k8s when running in a Pod (KUBERNETES_SERVICE_HOST is set), directory otherwise.
import { z } from 'zod';
import { duration } from '../config/types.js';

const DAY_MS = 86_400_000;

export const tlsSection = z
  .strictObject({
    mode: z
      .enum(['k8s', 'directory', 'files'])
      .optional()
      .describe('Where certificates come from: k8s (Secrets and ConfigMap, as Antrea), directory (issued into dir), files (issued by someone else). Default: k8s in a Pod, else directory.'),
    namespace: z.string().min(1).optional().describe('Namespace of the Secrets and ConfigMap; default POD_NAMESPACE, else flow-aggregator.'),
    service: z.string().min(1).default('flow-aggregator').describe('Service name: the server certificate carries DNS name <service>.<namespace>.svc.'),
    flowAggregatorAddress: z.string().optional().describe('Antrea\'s flowAggregatorAddress, an extra SAN (IP if it parses as one); the top-level key is used when this is unset.'),
    extraSANs: z.array(z.string().min(1)).default([]).describe('More SANs for the server certificate, e.g. localhost and 127.0.0.1 for exporters outside the cluster.'),
    dir: z.string().min(1).default('data/tls').describe('directory mode: where ca.crt, ca.key, server.crt, server.key, client.crt, client.key live.'),
    certFile: z.string().min(1).optional().describe('files mode: PEM path of the server certificate.'),
    keyFile: z.string().min(1).optional().describe('files mode: PEM path of the server key.'),
    caFile: z.string().min(1).optional().describe('files mode: PEM path of the CA that client certificates must chain to.'),
    validity: duration.default(365 * DAY_MS).describe('Lifetime of issued certificates (Antrea: one year).'),
    renewBefore: duration.default(90 * DAY_MS).describe('Certificates with less than this left are reissued (Antrea: 90 days).'),
    checkInterval: duration.default(3_600_000).describe('How often certificates are checked (and, in files mode, re-read).'),
    minVersion: z.enum(['TLSv1.2', 'TLSv1.3']).default('TLSv1.2').describe('The oldest TLS version a client may use.'),
  })
  .superRefine((c, ctx) => {
    if (c.mode === 'files') {
      for (const key of ['certFile', 'keyFile', 'caFile'] as const) {
        if (c[key] === undefined) ctx.addIssue({ code: 'custom', path: [key], message: `${key} is required when mode is "files"` });
      }
    }
    if (c.renewBefore >= c.validity) {
      ctx.addIssue({ code: 'custom', path: ['renewBefore'], message: 'renewBefore must be shorter than validity, or every check would reissue' });
    }
    if (c.checkInterval <= 0) ctx.addIssue({ code: 'custom', path: ['checkInterval'], message: 'checkInterval must be positive' });
  })
  .prefault({});

export type TlsConfig = z.output<typeof tlsSection>;
