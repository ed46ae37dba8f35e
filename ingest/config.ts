// Configuration of the ingest service. Two Antrea keys sit at the top level of the file, unchanged
// (`aggregatorTransportProtocol`, `flowAggregatorAddress`); flowagg's own settings live under `ingest:`.
import { z } from 'zod';
import { byteSize, duration, port } from '../lib/config/types.js';
import { topicsSchema } from '../lib/log/topics.js';
import { grpcSection } from './grpc/config.js';
import { tlsSection } from './tls/config.js';

export const TRANSPORTS = ['udp', 'tcp', 'tls'] as const;
export type Transport = (typeof TRANSPORTS)[number];

const oneProtocol = z
  .string()
  .transform((v) => v.trim().toLowerCase())
  .pipe(z.enum(['tls', 'tcp', 'udp', 'none'], { error: (i) => `"${String(i.input)}" is not a transport (tls, tcp, udp or none)` }));

/** Antrea's `aggregatorTransportProtocol`, case-insensitive; flowagg also takes a list. */
export const transportProtocols = z
  .preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(oneProtocol).min(1))
  .transform((v, ctx): Transport[] => {
    const list = [...new Set(v)];
    if (list.includes('none')) {
      if (list.length > 1) ctx.addIssue({ code: 'custom', message: '"none" cannot be combined with other transports' });
      return [];
    }
    return list as Transport[];
  })
  .meta({
    typeLabel: 'tls, tcp, udp or none, or a list of them',
    description:
      "Antrea's key: the IPFIX collectors to run, case-insensitive. flowagg also takes a list, so that UDP and TCP (or TLS) collectors run at once; \"none\" (alone) runs no IPFIX collector.",
  });

export const ingestSection = z
  .strictObject({
    host: z.string().default('').describe('Address the collectors bind; "" is every IPv4 and IPv6 address (Antrea\'s ":4739").'),
    port: port.default(4739).describe('IPFIX port (IANA 4739) for UDP and TCP, and for TLS unless tlsPort says otherwise.'),
    tlsPort: port.optional().describe('TLS port when TCP and TLS run together (they cannot share one TCP port).'),
    udp: z
      .strictObject({
        maxDatagramBytes: z.number().int().min(512).max(65535).default(65535).describe('Largest datagram read; IPFIX messages are at most 65,535 bytes.'),
        receiveBufferBytes: byteSize.default(8 * 1024 * 1024).describe('SO_RCVBUF: absorbs bursts while the event loop is busy.'),
        maxSessions: z.number().int().positive().default(65_536).describe('Exporters (address and port) tracked at once; beyond it the least recently active is forgotten.'),
      })
      .prefault({}),
    tcp: z
      .strictObject({
        maxConnections: z.number().int().positive().default(4096).describe('Connections beyond this are refused, so that connection floods cannot exhaust memory.'),
      })
      .prefault({}),
    tls: tlsSection,
    grpc: grpcSection,
    templateTtl: duration.default(1_800_000).describe('UDP template lifetime (RFC 7011 §8.4); go-ipfix\'s default is 1800 s. A UDP session idle this long is dropped.'),
    queue: z
      .strictObject({
        maxRecords: z.number().int().positive().default(100_000).describe('Records waiting for the log beyond which TCP/TLS sessions stop reading and UDP datagrams are dropped.'),
        maxBytes: byteSize.default(64 * 1024 * 1024).describe('The same bound in encoded bytes.'),
        batchRecords: z.number().int().positive().default(5000).describe('Records per producer.send.'),
        linger: duration.default(5).describe('How long a partial batch waits for more records.'),
        maxInFlightBatches: z.number().int().positive().default(4).describe('producer.send calls outstanding at once.'),
      })
      .prefault({})
      .describe('The bounded queue between decoding and the log: the backpressure point.'),
    shutdownTimeout: duration.default(10_000).describe('On stop, how long records still queued may take to reach the log before they are given up (and counted).'),
  })
  .prefault({});

/** The keys ingest reads from a flowagg configuration file (the service configuration's `log` has more). */
export const ingestConfigShape = {
  aggregatorTransportProtocol: transportProtocols.default(['udp', 'tcp']),
  flowAggregatorAddress: z
    .string()
    .default('')
    .describe("Antrea's key: an extra name of the collector for its TLS server certificate (an IP SAN if it parses as an IP, else a DNS SAN)."),
  ingest: ingestSection,
  log: z.object({ topics: topicsSchema }).prefault({}),
};

/** TCP and TLS cannot share a port: checked on any schema built from ingestConfigShape. */
export function refineIngestConfig(cfg: { aggregatorTransportProtocol: Transport[]; ingest: { port: number; tlsPort?: number | undefined } }, ctx: z.RefinementCtx): void {
  const tlsPort = cfg.ingest.tlsPort ?? cfg.ingest.port;
  const protocols = cfg.aggregatorTransportProtocol;
  if (protocols.includes('tcp') && protocols.includes('tls') && tlsPort === cfg.ingest.port && tlsPort !== 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['ingest', 'tlsPort'],
      message: `TCP and TLS cannot both listen on TCP port ${tlsPort}: set ingest.tlsPort to another port`,
    });
  }
}

export const ingestConfig = z.strictObject(ingestConfigShape).superRefine(refineIngestConfig);

export type IngestConfig = z.output<typeof ingestConfig>;
export type IngestSection = IngestConfig['ingest'];
