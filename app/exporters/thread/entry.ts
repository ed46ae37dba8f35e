// An exporter on a worker thread (threaded-runner.ts starts it): the export runner of one exporter kind,
// made as in the main thread, on the owner's message log through a port.
import { remoteLog } from '../../../lib/log/remote/client.js';
import type { ThreadMain } from '../../../lib/thread/boot.js';
import { hostService } from '../../../lib/thread/service-host.js';
import { FlowValues } from '../../../exporters/flow-values.js';
import { createExportRunner } from '../../../exporters/runner.js';
import { EXPORTER_MODULES } from '../index.js';
import { findExporter } from '../registry.js';
import type { ExportThreadData } from './data.js';

const main: ThreadMain<ExportThreadData> = (data) => hostService(async () => {
  const { config, kind } = data;
  const log = remoteLog(data.log, config.log.backend);
  const exporter = findExporter(EXPORTER_MODULES, kind).create(config, { log });
  const runner = createExportRunner({ topics: config.log.topics }, { log, exporter, values: new FlowValues(data.schemaId) });
  return { service: runner, close: () => log.close() };
});
export default main;
