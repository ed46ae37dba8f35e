// Antrea's `flowStreamService` section (off by default, as in Antrea; `enable` is Antrea's key), with
// flowagg's port and limits beside it. The TLS certificates are ingest's (`ingest.tls`), as Antrea serves
// both ports with one server certificate.
import { z } from 'zod';
import { byteSize, duration, port } from '../../lib/config/types.js';

export const flowStreamSection = z
  .strictObject({
    /** Antrea's key: serve FlowStreamService.GetFlows. */
    enable: z.boolean().default(false),
    /** Antrea's port (hard-coded there). */
    port: port.default(14740),
    /** GetFlows calls open at once, in all, and from one address. */
    maxStreams: z.number().int().positive().default(64),
    maxStreamsPerPeer: z.number().int().positive().default(8),
    maxConnections: z.number().int().positive().default(256),
    maxConnectionsPerPeer: z.number().int().positive().default(8),
    /** Largest GetFlowsRequest (filters) accepted. */
    maxRequestBytes: byteSize.pipe(z.number().int().min(1024)).default(1024 * 1024),
    /** Flows per GetFlowsResponse and per partition read (Antrea: 100). */
    batchFlows: z.number().int().min(1).max(10_000).default(100),
    /** How long a read waits for new records before a call without `follow` ends (Antrea: about 1 s). */
    idleWait: duration.default(1000),
    handshakeTimeout: duration.default(10_000),
  })
  .prefault({});

export type FlowStreamConfig = z.output<typeof flowStreamSection>;
