// Every exporter kind flowagg has, in the order `flowagg run` starts them.
import { type ServiceConfig } from '../lib/cli/commands/service-config.js';
import { clickHouseExporterModule } from './clickhouse/module.js';
import { flowLogExporterModule } from './flowlog/module.js';
import { ipfixExporterModule } from './ipfix/module.js';
import { s3ExporterModule } from './s3/module.js';
import { type ExporterModule } from './registry.js';

export const EXPORTER_MODULES: readonly ExporterModule<ServiceConfig>[] = [ipfixExporterModule, clickHouseExporterModule, s3ExporterModule, flowLogExporterModule];
