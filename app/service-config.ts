// The configuration file of the long-running services (`flowagg run`, `flowagg ingest`, ...), composed
// from the sections each service keeps in its own file: Antrea's flow-aggregator.conf keys where Antrea
// has one, flowagg's own sections beside them. A service joins by spreading its shape here and adding
// its cross-key checks; Antrea keys no section defines yet are accepted by withAntreaKeys, with a notice
// that they have no effect. Reload policies and descriptions live on the keys (lib/config/meta.ts).
import { z } from 'zod';
import { recordBufferSize, withAntreaKeys } from '../lib/config/antrea-keys.js';
import { reloadable } from '../lib/config/meta.js';
import { kubernetesSection } from '../lib/k8s/config.js';
import { logConfigSchema } from '../lib/log/config.js';
import { supervisionSection } from '../lib/service/config.js';
import { apiServerSection } from '../lib/telemetry/config.js';
import { ingestConfigShape, refineIngestConfig } from '../ingest/config.js';
import { processorConfigShape } from '../processor/config.js';
import { clusterIdSchema, flowCollectorSection } from '../exporters/ipfix/config.js';
import { clickHouseSection } from '../exporters/clickhouse/config.js';
import { flowLoggerSection } from '../exporters/flowlog/config.js';
import { s3UploaderSection } from '../exporters/s3/config.js';
import { flowStreamSection } from '../exporters/flowstream/config.js';
import { explorerSection } from '../exporters/explorer/config.js';
import { exportersSection } from '../exporters/config.js';

export const serviceConfigSchema = z
  .strictObject(
    withAntreaKeys({
      ...ingestConfigShape,
      ...processorConfigShape,
      clusterID: clusterIdSchema,
      // As in Antrea, an exporter whose section changes is replaced while running (serve.ts).
      flowCollector: reloadable(flowCollectorSection, 'live'),
      clickHouse: reloadable(clickHouseSection, 'live'),
      s3Uploader: reloadable(s3UploaderSection, 'live'),
      flowLogger: reloadable(flowLoggerSection, 'live'),
      exporters: exportersSection,
      log: logConfigSchema.prefault({}),
      apiServer: apiServerSection,
      kubernetes: kubernetesSection,
      recordBufferSize,
      flowStreamService: flowStreamSection,
      explorer: explorerSection,
      supervision: supervisionSection,
    }),
  )
  .superRefine(refineIngestConfig);

export type ServiceConfig = z.output<typeof serviceConfigSchema>;
