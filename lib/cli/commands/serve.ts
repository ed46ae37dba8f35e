// What `flowagg ingest` and `flowagg run` share: load the configuration, open the log, start the services
// and the telemetry HTTP server, and run until SIGINT or SIGTERM, then stop in reverse order.
import { loadConfig } from '../../config/load.js';
import { openLog } from '../../log/index.js';
import { type MessageLog } from '../../log/types.js';
import { TelemetryServer } from '../../telemetry/http.js';
import { componentLogger } from '../../telemetry/logger.js';
import { createIngest, type Ingest } from '../../../ingest/index.js';
import { createFlowStream, type FlowStream } from '../../../exporters/flowstream/index.js';
import { type ParsedArgs, stringOption } from '../command.js';
import { type ServiceConfig, serviceConfigSchema } from './service-config.js';

export const SERVICE_OPTIONS = {
  config: { type: 'string' },
} as const;

export function loadServiceConfig(args: ParsedArgs, overrides: Record<string, unknown> = {}): ServiceConfig {
  const file = stringOption(args, 'config');
  return loadConfig(serviceConfigSchema, { ...(file === undefined ? {} : { file }), overrides });
}

/** Antrea's /recordmetrics shape, with ingest's figures (the processor and exporters add theirs when built). */
function recordMetrics(ingest: Ingest) {
  const s = ingest.stats();
  return {
    numRecordsExported: 0,
    numRecordsReceived: s.records,
    numFlows: 0,
    numConnectionsToCollector: s.streamSessions + s.udpSessions,
    numRecordsWritten: s.written,
    numRecordsDropped: s.droppedRecords,
    numRecordsLostInTransit: s.lostInTransit,
  };
}

export interface ServeOptions {
  readonly command: string;
  /** Said in the startup log: what this command runs, and what it does not run yet. */
  readonly notRunning?: readonly string[];
  readonly signal?: AbortSignal;
}

export async function serve(config: ServiceConfig, opts: ServeOptions): Promise<number> {
  const logger = componentLogger(opts.command);
  const log: MessageLog = await openLog(config.log);
  const ingest = createIngest(config, { log });
  const http = new TelemetryServer();
  http.addReadinessCheck('ingest', () => ingest.readiness());
  http.addJsonRoute('/recordmetrics', () => recordMetrics(ingest));
  let flowStream: FlowStream | undefined;
  try {
    await ingest.start();
    if (config.flowStreamService.enable) {
      const topics = config.log.topics;
      flowStream = createFlowStream({
        flowStreamService: config.flowStreamService, host: config.ingest.host, tls: config.ingest.tls,
        flowAggregatorAddress: config.flowAggregatorAddress, topic: topics.flowsProcessed, partitions: topics.flowsProcessedPartitions,
      }, { log });
      await flowStream.start();
    }
    const httpPort = await http.listen(config.apiServer.apiPort, config.apiServer.bindAddress || undefined);
    logger.info(
      {
        log: config.log.backend === 'embedded' ? { backend: 'embedded', dir: config.log.embedded.dir } : { backend: 'kafka', brokers: config.log.kafka?.brokers },
        collectors: ingest.ports,
        ...(flowStream && { flowStreamService: flowStream.port }),
        http: httpPort,
        ...(opts.notRunning && opts.notRunning.length > 0 && { notRunning: opts.notRunning }),
      },
      opts.notRunning && opts.notRunning.length > 0
        ? `flowagg ${opts.command} running ingest only: ${opts.notRunning.join(', ')} not implemented yet`
        : `flowagg ${opts.command} running`,
    );
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
      opts.signal?.addEventListener('abort', done, { once: true });
    });
    logger.info('stopping');
  } finally {
    await http.close();
    await flowStream?.stop().catch((err: unknown) => logger.error({ err }, 'the flow stream service did not stop cleanly'));
    await ingest.stop().catch((err: unknown) => logger.error({ err }, 'ingest did not stop cleanly'));
    await log.close();
  }
  return 0;
}
