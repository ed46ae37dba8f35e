// The configuration file of the long-running services (`flowagg ingest`, `flowagg run`): Antrea's
// flow-aggregator.conf keys where Antrea has one (aggregatorTransportProtocol, flowAggregatorAddress,
// apiServer.apiPort), flowagg's own sections beside them (ingest, log). Sections of the services not built
// yet (processor, exporters) join this schema as they land.
import { z } from 'zod';
import { port } from '../../config/types.js';
import { kubernetesSection } from '../../k8s/config.js';
import { logConfigSchema } from '../../log/config.js';
import { ingestConfigShape, refineIngestConfig } from '../../../ingest/config.js';
import { flowStreamSection } from '../../../exporters/flowstream/config.js';

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
    log: logConfigSchema.prefault({}),
    apiServer: apiServerSection,
    kubernetes: kubernetesSection,
    flowStreamService: flowStreamSection,
  })
  .superRefine(refineIngestConfig);

export type ServiceConfig = z.output<typeof serviceConfigSchema>;
