// The configuration file of the long-running services (`flowagg run`, `flowagg ingest`, ...), composed
// from the sections each service keeps in its own file: Antrea's flow-aggregator.conf keys where Antrea
// has one, flowagg's own sections beside them. A service joins by spreading its shape here and adding
// its cross-key checks; Antrea keys no section defines yet are accepted by withAntreaKeys, with a notice
// that they have no effect. Reload policies and descriptions live on the keys (lib/config/meta.ts).
import { z } from 'zod';
import { recordBufferSize, withAntreaKeys } from '../../config/antrea-keys.js';
import { kubernetesSection } from '../../k8s/config.js';
import { logConfigSchema } from '../../log/config.js';
import { apiServerSection } from '../../telemetry/config.js';
import { ingestConfigShape, refineIngestConfig } from '../../../ingest/config.js';
import { flowStreamSection } from '../../../exporters/flowstream/config.js';

export const serviceConfigSchema = z
  .strictObject(
    withAntreaKeys({
      ...ingestConfigShape,
      log: logConfigSchema.prefault({}),
      apiServer: apiServerSection,
      kubernetes: kubernetesSection,
      recordBufferSize,
      flowStreamService: flowStreamSection,
    }),
  )
  .superRefine(refineIngestConfig);

export type ServiceConfig = z.output<typeof serviceConfigSchema>;
