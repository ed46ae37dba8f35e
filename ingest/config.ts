// Configuration of the ingest service. Two Antrea keys sit at the top level of the file, unchanged
// (`aggregatorTransportProtocol`, `flowAggregatorAddress`); flowagg's own settings live under `ingest:`.
import { z } from 'zod';
import { byteSize, duration, port } from '../lib/config/types.js';
import { topicsSchema } from '../lib/log/topics.js';
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
        /** Datagrams received and waiting to be handled; beyond, new ones are dropped (dropped_messages_total{reason="overload"}). */
        backlogBytes: byteSize.default(8 * 1024 * 1024),
        /** Exporters (address and port) tracked at once; beyond it the least recently active is forgotten. */
        maxSessions: z.number().int().positive().default(65_536),
      })
      .prefault({}),
    tcp: z
      .strictObject({
        /** TCP + TLS connections at once; beyond, new ones are refused. A 5,000-Node cluster holds 5,000. */
        maxConnections: z.number().int().positive().default(8192),
        /** Connections from one address at once (Antrea agents open one each). */
        maxConnectionsPerSource: z.number().int().positive().default(64),
        /** Of maxConnections, the slots only sources that have sent valid IPFIX before may take. */
        reservedForKnownSources: z.number().int().nonnegative().default(4096),
        /** A TLS client must finish its handshake within this. */
        handshakeTimeout: duration.default(10_000),
        /** A new connection must deliver a valid IPFIX message within this (after the TLS handshake). */
        firstMessageTimeout: duration.default(30_000),
        /** Once a message has begun, the rest of it must arrive within this. */
        partialMessageTimeout: duration.default(30_000),
        /** A connection that sends nothing for this long is closed; 0 never closes an idle one. */
        idleTimeout: duration.default(600_000),
      })
      .prefault({}),
    /** Bounds on templates and on the transcoders compiled for them (docs/ingest.md, "Limits"). */
    templates: z
      .strictObject({
        /** Templates one session (connection, or UDP address and port) holds; beyond, its oldest is evicted. */
        maxPerSession: z.number().int().positive().default(4096),
        /** Templates of all sessions of one exporter address (forged UDP source ports share it). */
        maxPerExporter: z.number().int().positive().default(8192),
        /** Templates in the process; beyond, the least recently active exporter's idlest one is evicted. */
        maxTotal: z.number().int().positive().default(65_536),
        /** Fields of all templates together (a template's memory grows with its fields). */
        maxTotalFields: z.number().int().positive().default(4_000_000),
        /** Compiled transcoders, one per distinct template layout, shared by every session. */
        maxLayouts: z.number().int().positive().default(4096),
        /** Records a layout carries, interpreted, before it is compiled (so that compiling costs a share of the input's bytes). */
        compileAfterRecords: z.number().int().nonnegative().default(16),
      })
      .prefault({}),
    metrics: z
      .strictObject({
        /** Exporter addresses with series of their own; later ones share exporter="_overflow". */
        maxExporters: z.number().int().positive().default(8192),
      })
      .prefault({}),
    sequence: z
      .strictObject({
        /** Sequence-number streams (session and observation domain) tracked; beyond, the least recently active is forgotten. */
        maxStreams: z.number().int().positive().default(65_536),
      })
      .prefault({}),
    /** Loss across replicas, computed from flows.raw (ingest/sequence-audit.ts): on one deployment only. */
    sequenceAudit: z
      .strictObject({
        enabled: z.boolean().default(false),
        /** How long records of one message may take to reach the log through different partitions. */
        settle: duration.default(10_000),
      })
      .prefault({}),
    tls: tlsSection,
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

/**
 * Checked on any schema built from ingestConfigShape: TCP and TLS cannot share a port, and the connection
 * slots kept for known exporters must leave some for new ones.
 */
export function refineIngestConfig(
  cfg: { aggregatorTransportProtocol: Transport[]; ingest: { port: number; tlsPort?: number | undefined; tcp: { maxConnections: number; reservedForKnownSources: number } } },
  ctx: z.RefinementCtx,
): void {
  const { maxConnections, reservedForKnownSources } = cfg.ingest.tcp;
  if (reservedForKnownSources >= maxConnections) {
    ctx.addIssue({
      code: 'custom',
      path: ['ingest', 'tcp', 'reservedForKnownSources'],
      message: `${reservedForKnownSources} reserved of ${maxConnections} connections leaves none for an exporter that has not connected before: make it smaller than ingest.tcp.maxConnections`,
    });
  }
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
