// What `flowagg ingest`, `flowagg process` and `flowagg run` share: load the configuration, open the log,
// start the services and the telemetry HTTP server, and run until SIGINT or SIGTERM, then stop in reverse
// order.
import { loadConfig } from '../../config/load.js';
import { openLog } from '../../log/index.js';
import { type MessageLog } from '../../log/types.js';
import { TelemetryServer } from '../../telemetry/http.js';
import { componentLogger } from '../../telemetry/logger.js';
import { openMetadataSource } from '../../k8s/index.js';
import { type MetadataSource } from '../../k8s/metadata.js';
import { createIngest, type Ingest } from '../../../ingest/index.js';
import { flowRecords, flowRecordsFilter, processorRecordMetrics } from '../../../processor/api.js';
import { createProcessor, type Processor } from '../../../processor/index.js';
import { type ParsedArgs, stringOption } from '../command.js';
import { type ServiceConfig, serviceConfigSchema } from './service-config.js';

export const SERVICE_OPTIONS = {
  config: { type: 'string' },
} as const;

export function loadServiceConfig(args: ParsedArgs, overrides: Record<string, unknown> = {}): ServiceConfig {
  const file = stringOption(args, 'config');
  return loadConfig(serviceConfigSchema, { ...(file === undefined ? {} : { file }), overrides });
}

/** Antrea's /recordmetrics shape, with the figures of the services running (the exporters add theirs when built). */
function recordMetrics(ingest: Ingest | undefined, processor: Processor | undefined) {
  const s = ingest?.stats();
  const p = processor === undefined ? undefined : processorRecordMetrics(processor);
  return {
    numRecordsExported: p?.numRecordsExported ?? 0,
    numRecordsReceived: s?.records ?? p?.numRecordsProcessed ?? 0,
    numFlows: p?.numFlows ?? 0,
    numConnToCollector: s === undefined ? 0 : s.streamSessions + s.udpSessions,
    numConnectionsToCollector: s === undefined ? 0 : s.streamSessions + s.udpSessions,
    numRecordsWritten: s?.written ?? 0,
    numRecordsDropped: (s?.droppedRecords ?? 0) + (p?.numRecordsDropped ?? 0),
    numRecordsLostInTransit: s?.lostInTransit ?? 0,
    ...(p !== undefined && { numRecordsProcessed: p.numRecordsProcessed }),
  };
}

export type ServiceName = 'ingest' | 'processor';

export interface ServeOptions {
  readonly command: string;
  /** The services this command runs. */
  readonly services: readonly ServiceName[];
  /** Said in the startup log: what this command runs, and what it does not run yet. */
  readonly notRunning?: readonly string[];
  readonly signal?: AbortSignal;
  /** Told the bound ports once everything runs (tests use port 0). */
  readonly onStarted?: (ports: { readonly http: number; readonly collectors: Readonly<Record<string, number>> }) => void;
}

export async function serve(config: ServiceConfig, opts: ServeOptions): Promise<number> {
  const logger = componentLogger(opts.command);
  const log: MessageLog = await openLog(config.log);
  const ingest = opts.services.includes('ingest') ? createIngest(config, { log }) : undefined;
  const metadata: MetadataSource | undefined = opts.services.includes('processor') ? openMetadataSource(config.kubernetes) : undefined;
  const processor = opts.services.includes('processor') ? createProcessor(config, { log, ...(metadata && { metadata }) }) : undefined;
  const http = new TelemetryServer();
  if (ingest !== undefined) http.addReadinessCheck('ingest', () => ingest.readiness());
  if (processor !== undefined) {
    http.addReadinessCheck('processor', () => processor.readiness());
    http.addJsonRoute('/flowrecords', (url) => flowRecords(processor, flowRecordsFilter(url)));
  }
  if (metadata !== undefined) http.addReadinessCheck('kubernetes', () => metadata.readiness());
  http.addJsonRoute('/recordmetrics', () => recordMetrics(ingest, processor));
  try {
    await ingest?.start();
    await metadata?.ready();
    await processor?.start();
    const httpPort = await http.listen(config.apiServer.apiPort, config.apiServer.bindAddress || undefined);
    logger.info(
      {
        log: config.log.backend === 'embedded' ? { backend: 'embedded', dir: config.log.embedded.dir } : { backend: 'kafka', brokers: config.log.kafka?.brokers },
        ...(ingest !== undefined && { collectors: ingest.ports }),
        ...(processor !== undefined && { processor: config.mode }),
        http: httpPort,
        ...(opts.notRunning && opts.notRunning.length > 0 && { notRunning: opts.notRunning }),
      },
      opts.notRunning && opts.notRunning.length > 0
        ? `flowagg ${opts.command} running ${opts.services.join(' and ')}: ${opts.notRunning.join(', ')} not implemented yet`
        : `flowagg ${opts.command} running`,
    );
    opts.onStarted?.({ http: httpPort, collectors: ingest?.ports ?? {} });
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
      opts.signal?.addEventListener('abort', done, { once: true });
    });
    logger.info('stopping');
  } finally {
    await http.close();
    await ingest?.stop().catch((err: unknown) => logger.error({ err }, 'ingest did not stop cleanly'));
    await processor?.stop().catch((err: unknown) => logger.error({ err }, 'the processor did not stop cleanly'));
    await metadata?.close().catch((err: unknown) => logger.error({ err }, 'the Kubernetes metadata source did not close cleanly'));
    await log.close();
  }
  return 0;
}
