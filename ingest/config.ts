// Configuration of the ingest service. Two Antrea keys sit at the top level of the file, unchanged
// (`aggregatorTransportProtocol`, `flowAggregatorAddress`); flowagg's own settings live under `ingest:`.
import { z } from 'zod';
import { emptyIsDefault } from '../lib/config/empty.js';
import { byteSize, duration, port } from '../lib/config/types.js';
import { topicsSchema } from '../lib/log/topics.js';
import { grpcSection } from './grpc/config.js';
import { tlsSection } from '../lib/tls/config.js';

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
      "Antrea's key: the IPFIX collectors to run, case-insensitive; TLS (mutual, as Antrea's) when left out or empty, as in Antrea. flowagg also takes a list, so that UDP and TCP (or TLS) collectors run at once; \"none\" (alone) runs no IPFIX collector. Without a configuration file, `flowagg run` and `flowagg ingest` run udp and tcp (the quick start).",
  });

export const ingestSection = z
  .strictObject({
    host: z.string().default('').describe('Address the collectors bind; "" is every IPv4 and IPv6 address (Antrea\'s ":4739").'),
    port: port.default(4739).describe('IPFIX port (IANA 4739) for UDP and TCP, and for TLS unless tlsPort says otherwise.'),
    tlsPort: port.optional().describe('TLS port when TCP and TLS run together (they cannot share one TCP port).'),
    netflow: z
      .strictObject({
        enabled: z.boolean().default(false).describe('Collect NetFlow v9 and v5 (and IPFIX) over UDP on netflow.port. Off unless enabled; the quick start (`flowagg run` without a configuration file) enables it.'),
        port: port.default(2055).describe('UDP port of the NetFlow collector (2055, the customary NetFlow port); the UDP limits of ingest.udp apply to it too.'),
      })
      .prefault({})
      .describe('The NetFlow v9 (RFC 3954) and v5 collector (docs/netflow.md).'),
    udp: z
      .strictObject({
        maxDatagramBytes: z.number().int().min(512).max(65535).default(65535).describe('Largest datagram read; IPFIX messages are at most 65,535 bytes.'),
        receiveBufferBytes: byteSize.default(8 * 1024 * 1024).describe('SO_RCVBUF: absorbs bursts while the event loop is busy.'),
        backlogBytes: byteSize.default(8 * 1024 * 1024).describe('Datagrams received and waiting to be handled; beyond, new ones are dropped (dropped_messages_total{reason="overload"}).'),
        maxSessions: z.number().int().positive().default(65_536).describe('Exporters (address and port) tracked at once; beyond it the least recently active is forgotten.'),
      })
      .prefault({}),
    tcp: z
      .strictObject({
        maxConnections: z.number().int().positive().default(8192).describe('TCP, TLS and gRPC connections at once (one budget for the process); beyond, new ones are refused. A 5,000-Node cluster holds 5,000.'),
        maxConnectionsPerSource: z.number().int().positive().default(64).describe('Connections from one address at once (Antrea agents open one each); raise it for exporters behind a NAT.'),
        reservedForKnownSources: z.number().int().nonnegative().default(4096).describe('Of maxConnections, the slots only sources that have sent valid input (IPFIX, an ExportRequest) may take: connections from unknown addresses are at most maxConnections minus this.'),
        handshakeTimeout: duration.default(10_000).describe('A TLS client must finish its handshake within this.'),
        firstMessageTimeout: duration.default(30_000).describe('A new connection must deliver a complete IPFIX message within this (after the TLS handshake).'),
        partialMessageTimeout: duration.default(30_000).describe('Once a message has begun, the rest of it must arrive within this.'),
        idleTimeout: duration.default(600_000).describe('A connection that sends nothing for this long is closed; 0 never closes an idle one.'),
      })
      .prefault({}),
    templates: z
      .strictObject({
        maxPerSession: z.number().int().positive().default(4096).describe('Templates one session (connection, or UDP address and port) holds; beyond, its oldest is evicted.'),
        maxPerExporter: z.number().int().positive().default(8192).describe('Templates of all sessions of one exporter address (forged UDP source ports share it).'),
        maxTotal: z.number().int().positive().default(65_536).describe('Templates in the process; beyond, the least recently active exporter\'s idlest one is evicted.'),
        maxTotalFields: z.number().int().positive().default(4_000_000).describe('Fields of all templates together (a template\'s memory grows with its fields).'),
        maxLayouts: z.number().int().positive().default(4096).describe('Compiled transcoders, one per distinct template layout, shared by every session.'),
        compileAfterRecords: z.number().int().nonnegative().default(16).describe('Records a layout carries, interpreted, before it is compiled (so that compiling costs a share of the input\'s bytes).'),
      })
      .prefault({})
      .describe('Bounds on templates and on the transcoders compiled for them (docs/ingest.md, "Limits").'),
    metrics: z
      .strictObject({
        maxExporters: z.number().int().positive().default(8192).describe('Exporter addresses with series of their own; later ones share exporter="_overflow".'),
      })
      .prefault({}),
    sequence: z
      .strictObject({
        maxStreams: z.number().int().positive().default(65_536).describe('Sequence-number streams (session and observation domain) tracked; beyond, the least recently active is forgotten.'),
      })
      .prefault({}),
    sequenceAudit: z
      .strictObject({
        enabled: z.boolean().default(false).describe('Compute loss across replicas from flows.raw (ingest/sequence-audit.ts): on one deployment only.'),
        settle: duration.default(10_000).describe('How long records of one message may take to reach the log through different partitions.'),
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
    clockTick: duration.default(1000).describe("How often ingest writes its time to every flows.raw partition (a clock tick), so that a partition receiving no record still moves the processor's clock and its flows expire; 0 never does (flows then wait for the next record)."),
    shutdownTimeout: duration.default(10_000).describe('On stop, how long records still queued may take to reach the log before they are given up (and counted).'),
    thread: z
      .union([z.literal('auto'), z.boolean()])
      .default('auto')
      .describe("Ingest (its listeners, decoding and transcoding) on a worker thread of its own, handing its records to the main thread's log: `auto` is on from four cores (below, the crossing costs more CPU than it takes off the main thread), `false` keeps it in the main thread."),
  })
  .prefault({});

/** The keys ingest reads from a flowagg configuration file (the service configuration's `log` has more). */
export const ingestConfigShape = {
  // Antrea's default; without a configuration file `flowagg run` and `flowagg ingest` take udp and tcp (app/serve.ts NO_FILE_CONFIG).
  aggregatorTransportProtocol: emptyIsDefault(transportProtocols.default(['tls'])),
  flowAggregatorAddress: z
    .string()
    .default('')
    .describe("Antrea's key: an extra name of the collector for its TLS server certificate (an IP SAN if it parses as an IP, else a DNS SAN)."),
  ingest: ingestSection,
  log: z.object({ topics: topicsSchema }).prefault({}),
};

/**
 * Checked on any schema built from ingestConfigShape: TCP and TLS cannot share a port, nor UDP IPFIX and
 * NetFlow, and the connection slots kept for known exporters must leave some for new ones.
 */
export function refineIngestConfig(
  cfg: { aggregatorTransportProtocol: Transport[]; ingest: { port: number; tlsPort?: number | undefined; netflow: { enabled: boolean; port: number }; tcp: { maxConnections: number; reservedForKnownSources: number } } },
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
  const netflow = cfg.ingest.netflow;
  if (netflow.enabled && protocols.includes('udp') && netflow.port === cfg.ingest.port && netflow.port !== 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['ingest', 'netflow', 'port'],
      message: `the IPFIX and NetFlow collectors cannot both listen on UDP port ${netflow.port}: set ingest.netflow.port to another port (it takes IPFIX too), or leave udp out of aggregatorTransportProtocol`,
    });
  }
}

export const ingestConfig = z.strictObject(ingestConfigShape).superRefine(refineIngestConfig);

export type IngestConfig = z.output<typeof ingestConfig>;
export type IngestSection = IngestConfig['ingest'];
