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

/**
 * Antrea's `aggregatorTransportProtocol`, case-insensitive. flowagg also takes a list, so that UDP and
 * TCP (or TLS) collectors run at once; "none" (alone) runs no collector.
 */
export const transportProtocols = z
  .preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(oneProtocol).min(1))
  .transform((v, ctx): Transport[] => {
    const list = [...new Set(v)];
    if (list.includes('none')) {
      if (list.length > 1) ctx.addIssue({ code: 'custom', message: '"none" cannot be combined with other transports' });
      return [];
    }
    return list as Transport[];
  });

export const ingestSection = z
  .strictObject({
    /** Address the collectors bind; "" is every IPv4 and IPv6 address (Antrea's ":4739"). */
    host: z.string().default(''),
    /** IPFIX port (IANA 4739) for UDP and TCP, and for TLS unless tlsPort says otherwise. */
    port: port.default(4739),
    /** TLS port when TCP and TLS run together (they cannot share one TCP port). */
    tlsPort: port.optional(),
    udp: z
      .strictObject({
        /** Largest datagram read; IPFIX messages are at most 65,535 bytes. */
        maxDatagramBytes: z.number().int().min(512).max(65535).default(65535),
        /** SO_RCVBUF: absorbs bursts while the event loop is busy. */
        receiveBufferBytes: byteSize.default(8 * 1024 * 1024),
        /** Exporters (address and port) tracked at once; beyond it the least recently active is forgotten. */
        maxSessions: z.number().int().positive().default(65_536),
      })
      .prefault({}),
    tcp: z
      .strictObject({
        /** Connections beyond this are refused, so that connection floods cannot exhaust memory. */
        maxConnections: z.number().int().positive().default(4096),
      })
      .prefault({}),
    tls: tlsSection,
    /** Antrea's gRPC collector, FlowExportService (ingest/grpc/config.ts). */
    grpc: grpcSection,
    /** UDP template lifetime (RFC 7011 §8.4); go-ipfix's default is 1800 s. A UDP session idle this long is dropped. */
    templateTtl: duration.default(1_800_000),
    /** The bounded queue between decoding and the log: the backpressure point. */
    queue: z
      .strictObject({
        /** Records waiting for the log beyond which TCP/TLS sessions stop reading and UDP datagrams are dropped. */
        maxRecords: z.number().int().positive().default(100_000),
        /** The same bound in encoded bytes. */
        maxBytes: byteSize.default(64 * 1024 * 1024),
        /** Records per producer.send. */
        batchRecords: z.number().int().positive().default(5000),
        /** How long a partial batch waits for more records. */
        linger: duration.default(5),
        /** producer.send calls outstanding at once. */
        maxInFlightBatches: z.number().int().positive().default(4),
      })
      .prefault({}),
    /** On stop, how long records still queued may take to reach the log before they are given up (and counted). */
    shutdownTimeout: duration.default(10_000),
  })
  .prefault({});

/** The keys ingest reads from a flowagg configuration file (the service configuration's `log` has more). */
export const ingestConfigShape = {
  aggregatorTransportProtocol: transportProtocols.default(['udp', 'tcp']),
  flowAggregatorAddress: z.string().default(''),
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
