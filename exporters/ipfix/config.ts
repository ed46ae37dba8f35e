// The `flowCollector` section, Antrea's keys unchanged (reference §3), plus flowagg's: file paths for the
// TLS material outside Kubernetes, the connect timeout, and how records are batched. Values are checked
// here, at start, with the key path in every message.
import { z } from 'zod';
import { duration } from '../../lib/config/types.js';
import { type CollectorAddress, parseCollectorAddress } from './address.js';

const MIN_MESSAGE = 512;
const MAX_MESSAGE = 65535;

/** Antrea's `mode` (top level): which records the processor writes, and so which template the exporter sends. */
export const modeSchema = z.string().transform((v, ctx): Mode => {
  const mode = v.trim().toLowerCase();
  if (mode === 'aggregate') return 'Aggregate';
  if (mode === 'proxy') return 'Proxy';
  ctx.addIssue({ code: 'custom', message: `"${v}" is not a mode (Aggregate or Proxy)` });
  return z.NEVER;
});

export type Mode = 'Aggregate' | 'Proxy';

const tlsSection = z
  .strictObject({
    enable: z.boolean().default(false),
    /** Secret holding ca.crt (Kubernetes); "" = the system roots (or caFile). */
    caSecretName: z.string().default(''),
    /** kubernetes.io/tls Secret (tls.crt, tls.key) with the client certificate: mutual TLS. */
    clientSecretName: z.string().default(''),
    /** SNI and the name the server certificate must carry; default the address host. */
    serverName: z.string().default(''),
    minVersion: z.enum(['', 'VersionTLS12', 'VersionTLS13']).default(''),
    /** Outside Kubernetes: PEM files instead of the Secrets. */
    caFile: z.string().default(''),
    certFile: z.string().default(''),
    keyFile: z.string().default(''),
  })
  .prefault({});

export const flowCollectorSection = z
  .strictObject({
    enable: z.boolean().default(false),
    address: z.string().default(''),
    /** Default: FNV-1 32-bit of the cluster UUID's 16 bytes (Antrea), else 0. */
    observationDomainID: z.number().int().min(0).max(0xffffffff).optional(),
    recordFormat: z.enum(['IPFIX', 'JSON']).default('IPFIX'),
    /** UDP only: every template is sent again this often (Antrea: 600 s). 0 = only at connection. */
    templateRefreshTimeout: duration.default(600_000),
    /** 0 = automatic: 65535 over TCP, the path MTU less IP and UDP headers over UDP. */
    maxIPFIXMsgSize: z
      .number()
      .int()
      .refine((v) => v === 0 || (v >= MIN_MESSAGE && v <= MAX_MESSAGE), { message: `must be 0 (automatic) or between ${MIN_MESSAGE} and ${MAX_MESSAGE}` })
      .default(0),
    tls: tlsSection,
    includeK8sNames: z.boolean().default(true),
    includeK8sUIDs: z.boolean().default(false),
    /** flowagg: how long a connection attempt may take before it counts as failed. */
    connectTimeout: duration.default(10_000),
    /** flowagg: records per delivery batch, and how long a partial batch waits (Antrea flushes every second). */
    batchRecords: z.number().int().min(1).max(100_000).default(5000),
    batchDelay: duration.default(1000),
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
  .prefault({});

export type FlowCollectorConfig = z.output<typeof flowCollectorSection>;

/** The address of a section that passed validation. */
export function collectorAddress(c: FlowCollectorConfig): CollectorAddress {
  const parsed = parseCollectorAddress(c.address);
  if (typeof parsed === 'string') throw new Error(`flowCollector.address ${parsed}`);
  return parsed;
}
