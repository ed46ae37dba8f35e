// The `ingest.tls` configuration section: where the collector's certificates come from.
//   k8s        CA in Secret flow-aggregator-ca-tls (shared by replicas), published to agents in
//              ConfigMap flow-aggregator-ca and Secret flow-aggregator-client-tls, as Antrea does.
//   directory  outside a cluster: ca, server and client certificates and keys kept in `dir`.
//   files      certificates issued by someone else (cert-manager, a corporate CA): read, never issued.
// Without `mode`, k8s when running in a Pod (KUBERNETES_SERVICE_HOST is set), directory otherwise.
import { z } from 'zod';
import { duration } from '../../lib/config/types.js';

const DAY_MS = 86_400_000;

export const tlsSection = z
  .strictObject({
    mode: z.enum(['k8s', 'directory', 'files']).optional(),
    /** Namespace of the Secrets and ConfigMap; default POD_NAMESPACE, else flow-aggregator. */
    namespace: z.string().min(1).optional(),
    /** Service name: the server certificate carries DNS name <service>.<namespace>.svc. */
    service: z.string().min(1).default('flow-aggregator'),
    /** Antrea's flowAggregatorAddress, an extra SAN (IP if it parses as one); the top-level key is used when this is unset. */
    flowAggregatorAddress: z.string().optional(),
    /** More SANs for the server certificate, e.g. localhost and 127.0.0.1 for exporters outside the cluster. */
    extraSANs: z.array(z.string().min(1)).default([]),
    /** directory mode: where ca.crt, ca.key, server.crt, server.key, client.crt, client.key live. */
    dir: z.string().min(1).default('data/tls'),
    /** files mode: PEM paths. */
    certFile: z.string().min(1).optional(),
    keyFile: z.string().min(1).optional(),
    caFile: z.string().min(1).optional(),
    /** Lifetime of issued certificates (Antrea: one year). */
    validity: duration.default(365 * DAY_MS),
    /** Certificates with less than this left are reissued (Antrea: 90 days). */
    renewBefore: duration.default(90 * DAY_MS),
    /** How often certificates are checked (and, in files mode, re-read). */
    checkInterval: duration.default(3_600_000),
    minVersion: z.enum(['TLSv1.2', 'TLSv1.3']).default('TLSv1.2'),
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
