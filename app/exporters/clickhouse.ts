// The ClickHouse exporter as the CLI knows it: the clickHouse section, credentials from CH_USERNAME and
// CH_PASSWORD, the cluster UUID from the cluster when running in a Pod.
import type { ServiceConfig } from '../service-config.js';
import type { ExporterModule } from './registry.js';
import { clusterUuidSource } from '../../exporters/row/in-cluster.js';
import { createClickHouseExporter } from '../../exporters/clickhouse/index.js';

export const clickHouseExporterModule: ExporterModule<ServiceConfig> = {
  kind: 'clickhouse',
  section: 'clickHouse',
  enabled: (c) => c.clickHouse.enable,
  create: (c, deps) => {
    const clusterUuid = clusterUuidSource(c.kubernetes);
    return createClickHouseExporter(c.clickHouse, { ...(clusterUuid && { clusterUuid }), ...(deps.logger && { logger: deps.logger }) });
  },
};
