// Every exporter kind flowagg has, in the order `flowagg run` starts them.
import type { ServiceConfig } from '../service-config.js';
import { clickHouseExporterModule } from './clickhouse.js';
import { flowLogExporterModule } from './flowlog.js';
import { ipfixExporterModule } from './ipfix.js';
import { s3ExporterModule } from './s3.js';
import type { ExporterModule } from './registry.js';

export const EXPORTER_MODULES: readonly ExporterModule<ServiceConfig>[] = [ipfixExporterModule, clickHouseExporterModule, s3ExporterModule, flowLogExporterModule];
