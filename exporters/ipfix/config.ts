// The `flowCollector` section, Antrea's keys unchanged (reference §3), plus flowagg's: file paths for the
// TLS material outside Kubernetes, the connect timeout, and how records are batched. Values are checked
// here, at start, with the key path in every message.
import { z } from 'zod';
import { emptyIsDefault } from '../../lib/config/empty.js';
import { duration } from '../../lib/config/types.js';
import { type CollectorAddress, parseCollectorAddress } from './address.js';

const MIN_MESSAGE = 512;
const DEFAULT_TEMPLATE_REFRESH = 600_000;
const MAX_MESSAGE = 65535;

/** Antrea's top-level clusterID. */
export const clusterIdSchema = z
  .string()
  .default('')
  .meta({ description: 'The clusterId element of IPFIX exports; "" = the cluster UUID (ConfigMap antrea-cluster-identity).', reload: 'restart' });


const tlsSection = z
  .strictObject({
    enable: z.boolean().default(false).describe('TLS to the collector (TCP only).'),
    caSecretName: z.string().default('').describe('In Kubernetes: the Secret holding ca.crt, the CA the collector\'s certificate must chain to; "" = the system roots (or caFile).'),
    clientSecretName: z.string().default('').describe('In Kubernetes: a kubernetes.io/tls Secret (tls.crt, tls.key) with the client certificate, for mutual TLS.'),
    serverName: z.string().default('').describe('SNI, and the name the collector\'s certificate must carry; default the address host.'),
    minVersion: z.enum(['', 'VersionTLS12', 'VersionTLS13']).default('').describe('Oldest TLS version accepted; "" = VersionTLS12.'),
    caFile: z.string().default('').describe('Outside Kubernetes: PEM file of the CA, instead of caSecretName.'),
    certFile: z.string().default('').describe('Outside Kubernetes: PEM file of the client certificate, instead of clientSecretName.'),
    keyFile: z.string().default('').describe('Outside Kubernetes: PEM file of the client certificate\'s key.'),
  })
  .prefault({})
  .describe('TLS to the collector: a custom CA, an optional client certificate.');

export const flowCollectorSection = z
  .strictObject({
    enable: z.boolean().default(false).describe('Export to an external IPFIX (or JSON) collector.'),
    address: z.string().default('').describe('The collector, <host>:<port>[:<proto>] (proto tcp, udp or tls; IPv6 in brackets); port 4739 and tcp by default.'),
    observationDomainID: z.number().int().min(0).max(0xffffffff).optional().describe('Observation domain id of the export; default FNV-1 32-bit of the cluster UUID\'s 16 bytes (0 when unknown).'),
    recordFormat: emptyIsDefault(z.enum(['IPFIX', 'JSON']).default('IPFIX').describe('IPFIX, or JSON lines ({"ipfix": {...}, "@timestamp": ...}).')),
    templateRefreshTimeout: emptyIsDefault(
      duration
        // go-ipfix takes 0 as its default, 600 s.
        .transform((ms) => (ms === 0 ? DEFAULT_TEMPLATE_REFRESH : ms))
        .default(DEFAULT_TEMPLATE_REFRESH)
        .describe('UDP only: both templates are sent again this often, with or without data; 0 means 600s, as in Antrea.'),
    ),
    maxIPFIXMsgSize: z
      .number()
      .int()
      .refine((v) => v === 0 || (v >= MIN_MESSAGE && v <= MAX_MESSAGE), { message: `must be 0 (automatic) or between ${MIN_MESSAGE} and ${MAX_MESSAGE}` })
      .default(0)
      .describe('Largest message: 0 = 65535 over TCP, the path MTU less IP and UDP headers over UDP; else 512..65535.'),
    tls: tlsSection,
    includeK8sNames: z.boolean().default(true).describe('Pod, Node, Service, policy and Egress names in the template.'),
    includeK8sUIDs: z.boolean().default(false).describe('Pod, Node, Service, policy and Egress UIDs (16-byte UUIDs) in the template.'),
    connectTimeout: duration.default(10_000).describe('flowagg: how long a connection attempt may take before it counts as failed.'),
    batchRecords: z.number().int().min(1).max(100_000).default(5000).describe('flowagg: records per delivery batch (many records per message).'),
    batchDelay: duration.default(1000).describe('flowagg: how long a partial batch waits for more records (Antrea flushes every second).'),
  })
  .superRefine((c, ctx) => {
    if (!c.enable && c.address === '') return;
    const parsed = parseCollectorAddress(c.address);
    if (typeof parsed === 'string') {
      ctx.addIssue({ code: 'custom', path: ['address'], message: c.address === '' ? 'is required when flowCollector.enable is true' : parsed });
      return;
    }
    if (parsed.transport === 'udp' && (c.tls.enable || parsed.tls)) {
      ctx.addIssue({ code: 'custom', path: ['tls', 'enable'], message: 'TLS over UDP (DTLS) is not supported: use a tcp address, or turn TLS off' });
    }
    for (const key of ['caFile', 'certFile', 'keyFile'] as const) {
      if (c.tls[key] !== '' && !c.tls.enable && !parsed.tls) ctx.addIssue({ code: 'custom', path: ['tls', key], message: 'is set but TLS is off: set flowCollector.tls.enable' });
    }
    if ((c.tls.certFile === '') !== (c.tls.keyFile === '')) {
      ctx.addIssue({ code: 'custom', path: ['tls', c.tls.certFile === '' ? 'certFile' : 'keyFile'], message: 'certFile and keyFile go together (the client certificate and its key)' });
    }
  })
  .prefault({})
  .meta({ description: 'The IPFIX exporter (flowagg export ipfix, and flowagg run when enabled). A change replaces the running exporter, as Antrea does.', reload: 'live' });

export type FlowCollectorConfig = z.output<typeof flowCollectorSection>;

/** The address of a section that passed validation. */
export function collectorAddress(c: FlowCollectorConfig): CollectorAddress {
  const parsed = parseCollectorAddress(c.address);
  if (typeof parsed === 'string') throw new Error(`flowCollector.address ${parsed}`);
  return parsed;
}
