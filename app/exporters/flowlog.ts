// The flow log exporter as the CLI knows it: the flowLogger section.
import type { ServiceConfig } from '../service-config.js';
import type { ExporterModule } from './registry.js';
import { createFlowLogExporter } from '../../exporters/flowlog/index.js';

export const flowLogExporterModule: ExporterModule<ServiceConfig> = {
  kind: 'flowlog',
  section: 'flowLogger',
  enabled: (c) => c.flowLogger.enable,
  create: (c, deps) => createFlowLogExporter(c.flowLogger, { ...(deps.logger && { logger: deps.logger }) }),
};
