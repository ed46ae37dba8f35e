// Every exporter kind flowagg has, in the order `flowagg run` starts them.
import { type ServiceConfig } from '../lib/cli/commands/service-config.js';
import { ipfixExporterModule } from './ipfix/module.js';
import { type ExporterModule } from './registry.js';

export const EXPORTER_MODULES: readonly ExporterModule<ServiceConfig>[] = [ipfixExporterModule];
