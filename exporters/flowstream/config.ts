// Antrea's `flowStreamService` section (off by default, as in Antrea; `enable` is Antrea's key), with
// flowagg's port and limits beside it. The TLS certificates are ingest's (`ingest.tls`), as Antrea serves
// both ports with one server certificate.
import { z } from 'zod';
import { byteSize, duration, port } from '../../lib/config/types.js';
import type { TopicsConfig } from '../../lib/log/topics.js';
import type { TlsConfig } from '../../lib/tls/config.js';

export const flowStreamSection = z
  .strictObject({
    enable: z.boolean().default(false).describe("Antrea's key: serve FlowStreamService.GetFlows, processed flows read from flows.processed."),
    port: port.default(14740).describe("Port of the flow stream service (Antrea's, hard-coded there)."),
    maxStreams: z.number().int().positive().default(64).describe('GetFlows calls open at once, in all; more are refused with RESOURCE_EXHAUSTED.'),
    maxStreamsPerPeer: z.number().int().positive().default(8).describe('GetFlows calls open at once from one address.'),
    maxConnections: z.number().int().positive().default(256).describe('TLS connections open at once, in all.'),
    maxConnectionsPerPeer: z.number().int().positive().default(8).describe('TLS connections open at once from one address.'),
    maxRequestBytes: byteSize.pipe(z.number().int().min(1024)).default(1024 * 1024).describe('Largest GetFlowsRequest (its filters) accepted.'),
    batchFlows: z.number().int().min(1).max(10_000).default(100).describe('Flows per GetFlowsResponse, and records read per partition per round (Antrea: 100).'),
    idleWait: duration.default(1000).describe('How long a read waits for new records; a call without follow ends after one such wait finds nothing (Antrea: about 1 s).'),
    handshakeTimeout: duration.default(10_000).describe('A TLS handshake not finished after this is dropped.'),
  })
  .prefault({})
  .describe("Antrea's FlowStreamService, GetFlows on port 14740, server TLS with ingest's certificate (docs/grpc.md). Needs a restart.");

export type FlowStreamConfig = z.output<typeof flowStreamSection>;

/** What the service reads of flowagg's configuration: its section, ingest's address and certificates, the topic. */
export interface FlowStreamServiceConfig {
  readonly flowStreamService: FlowStreamConfig;
  /** Antrea's key: an extra name in the server certificate made from ingest.tls. */
  readonly flowAggregatorAddress: string;
  readonly ingest: { readonly host: string; readonly tls: TlsConfig };
  /** flows.processed, and its partitions when the service creates it (before the processor ever wrote to it). */
  readonly log: { readonly topics: Pick<TopicsConfig, 'flowsProcessed' | 'flowsProcessedPartitions'> };
}
