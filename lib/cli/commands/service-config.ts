// The configuration file of the long-running services (`flowagg ingest`, `flowagg run`): Antrea's
// flow-aggregator.conf keys where Antrea has one (aggregatorTransportProtocol, flowAggregatorAddress,
// apiServer.apiPort), flowagg's own sections beside them (ingest, log). Sections of the services not built
// yet (processor, exporters) join this schema as they land.
import { z } from 'zod';
import { port } from '../../config/types.js';
import { kubernetesSection } from '../../k8s/config.js';
import { logConfigSchema } from '../../log/config.js';
import { ingestConfigShape, refineIngestConfig } from '../../../ingest/config.js';
import { flowCollectorSection, modeSchema } from '../../../exporters/ipfix/config.js';
import { clickHouseSection } from '../../../exporters/clickhouse/config.js';
import { flowLoggerSection } from '../../../exporters/flowlog/config.js';
import { s3UploaderSection } from '../../../exporters/s3/config.js';

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
    /** Antrea's mode: what the processor writes to flows.processed, and so the IPFIX exporter's template. */
    mode: modeSchema.default('Aggregate'),
    /** Antrea's clusterID, the clusterId element of IPFIX exports; "" = the cluster UUID. */
    clusterID: z.string().default(''),
    flowCollector: flowCollectorSection,
    clickHouse: clickHouseSection,
    s3Uploader: s3UploaderSection,
    flowLogger: flowLoggerSection,
    log: logConfigSchema.prefault({}),
    apiServer: apiServerSection,
    kubernetes: kubernetesSection,
  })
  .superRefine(refineIngestConfig);

export type ServiceConfig = z.output<typeof serviceConfigSchema>;
