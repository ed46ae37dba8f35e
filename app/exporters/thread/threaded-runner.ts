// An exporter on a worker thread of its own (exporters.threads): its runner, a member of the exporter's
// consumer group as in the main thread, reads flows.processed through this thread's log, served to it over
// a port (lib/log/remote), so the log stays the one system of record; the destination's work (encoding,
// the socket, the file, the HTTP requests) leaves this thread.
import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { serveLog } from '../../../lib/log/remote/serve.js';
import type { MessageLog } from '../../../lib/log/types.js';
import type { Service } from '../../../lib/service/service.js';
import { componentLogger } from '../../../lib/telemetry/logger.js';
import { ThreadedService } from '../../../lib/thread/threaded-service.js';
import type { ExporterKind } from '../../../exporters/types.js';
import type { ServiceConfig } from '../../service-config.js';
import type { ExportThreadData } from './data.js';

export interface ExportService extends Service {
  readonly kind: ExporterKind;
}

export class ThreadedExportRunner extends ThreadedService implements ExportService {
  readonly kind: ExporterKind;

  constructor(config: ServiceConfig, kind: ExporterKind, deps: { readonly log: MessageLog; readonly schemaId: number | undefined }) {
    super({
      name: `export.${kind}`,
      entry: import.meta.resolve('./entry.js'),
      niceness: config.exporters.niceness,
      open: () => {
        const { port1, port2 } = new MessageChannel();
        const served = serveLog(deps.log, port1);
        const data: ExportThreadData = { config, kind, schemaId: deps.schemaId, log: port2 };
        return { data, transfer: [port2], release: () => served.close() };
      },
    }, componentLogger('export', { exporter: kind, thread: true }));
    this.kind = kind;
  }
}

/** exporters.threads: `auto` is on from two cores, which with the processor on its thread measured more records through (docs/benchmarks.md, "Threads"). */
export function exportThreads(config: ServiceConfig, cores = availableParallelism()): boolean {
  const { threads } = config.exporters;
  return threads === 'auto' ? cores >= 2 : threads;
}
