// The configuration file of the long-running services (`flowagg ingest`, `flowagg process`, `flowagg run`):
// Antrea's flow-aggregator.conf keys where Antrea has one (aggregatorTransportProtocol,
// flowAggregatorAddress, apiServer.apiPort, mode, activeFlowRecordTimeout, inactiveFlowRecordTimeout,
// recordContents), flowagg's own sections beside them (ingest, processor, log, kubernetes). Sections of
// the services not built yet (exporters) join this schema as they land.
import { z } from 'zod';
import { port } from '../../config/types.js';
import { kubernetesSection } from '../../k8s/config.js';
import { logConfigSchema } from '../../log/config.js';
import { ingestConfigShape, refineIngestConfig } from '../../../ingest/config.js';
import { processorConfigShape } from '../../../processor/config.js';

export const apiServerSection = z
  .strictObject({
    /** The HTTP port of /metrics, /healthz, /readyz and /recordmetrics (Antrea's apiServer port). */
    apiPort: port.default(10348),
    /** "" is every address. */
    bindAddress: z.string().default(''),
  })
  .prefault({});

export const serviceConfigSchema = z
  .strictObject({
    ...ingestConfigShape,
    ...processorConfigShape,
    log: logConfigSchema.prefault({}),
    apiServer: apiServerSection,
    kubernetes: kubernetesSection,
  })
  .superRefine(refineIngestConfig);

export type ServiceConfig = z.output<typeof serviceConfigSchema>;
