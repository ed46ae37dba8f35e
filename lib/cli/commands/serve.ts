// What `flowagg ingest` and `flowagg run` share: load the configuration, open the log, start the services
// and the telemetry HTTP server, and run until SIGINT or SIGTERM, then stop in reverse order.
import { formatDiagnostic, loadConfig } from '../../config/load.js';
import { ConfigWatcher } from '../../config/watch.js';
import { publishLogApi, serveLogAdmin } from '../../log/admin-api.js';
import { openLog } from '../../log/index.js';
import { topicValueFraming } from '../../log/value-format.js';
import { FLOW_RECORD_SCHEMA } from '../../../schemas/flow-record.js';
import { type MessageLog } from '../../log/types.js';
import { TelemetryServer } from '../../telemetry/http.js';
import { componentLogger } from '../../telemetry/logger.js';
import { listenForStop } from '../stop-signals.js';
import { createIngest, type Ingest } from '../../../ingest/index.js';
import { createFlowStream, type FlowStream } from '../../../exporters/flowstream/index.js';
import { type ParsedArgs, stringOption } from '../command.js';
import { type ServiceConfig, serviceConfigSchema } from './service-config.js';

export const SERVICE_OPTIONS = {
  config: { type: 'string' },
} as const;

export function fileOf(args: ParsedArgs): { file?: string } {
  const file = stringOption(args, 'config');
  return file === undefined ? {} : { file };
}

export function loadServiceConfig(args: ParsedArgs, overrides: Record<string, unknown> = {}): ServiceConfig {
  const logger = componentLogger('config');
  return loadConfig(serviceConfigSchema, {
    ...fileOf(args),
    overrides,
    report: (d) => logger[d.level === 'warning' ? 'warn' : 'info']({ ...d }, formatDiagnostic(d)),
  });
}

/** Antrea's /recordmetrics shape, with ingest's figures (the processor and exporters add theirs when built). */
function recordMetrics(ingest: Ingest) {
  const s = ingest.stats();
  return {
    numRecordsExported: 0,
    numRecordsReceived: s.records,
    numFlows: 0,
    numConnectionsToCollector: s.streamSessions + s.udpExporters,
    numRecordsWritten: s.written,
    numRecordsDropped: s.droppedRecords,
    numRecordsLostInTransit: s.lostInTransit,
  };
}

/** How a local client reaches the HTTP server: loopback when it binds every address. */
function apiUrl(bindAddress: string, port: number): string {
  const host = bindAddress === '' || bindAddress === '0.0.0.0' ? '127.0.0.1' : bindAddress === '::' ? '::1' : bindAddress;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export interface ServeOptions {
  readonly command: string;
  /** The configuration file, watched for changes (hot reload). */
  readonly file?: string;
  /** Said in the startup log: what this command runs, and what it does not run yet. */
  readonly notRunning?: readonly string[];
  readonly signal?: AbortSignal;
}

export async function serve(config: ServiceConfig, opts: ServeOptions): Promise<number> {
  const logger = componentLogger(opts.command);
  const log: MessageLog = await openLog(config.log);
  // Registers the FlowRecord schema when log.valueFormat is confluent; a registry that cannot be reached stops the start.
  const framing = await topicValueFraming(config.log, config.log.topics.flowsRaw, FLOW_RECORD_SCHEMA).catch(async (err: unknown) => {
    await log.close();
    throw err;
  });
  const stop = listenForStop(logger, opts.signal);
  const ingest = createIngest(config, { log, framing });
  // Services subscribe to the keys they apply live (watcher.subscribe); ingest has none (Antrea restarts for its keys).
  const watcher = opts.file === undefined ? undefined : new ConfigWatcher(serviceConfigSchema, config, { file: opts.file, logger: componentLogger('config') });
  const reload = () => void watcher?.reload();
  const http = new TelemetryServer();
  let unpublish = () => {};
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
    watcher?.start();
    process.on('SIGHUP', reload);
    const httpPort = await http.listen(config.apiServer.apiPort, config.apiServer.bindAddress || undefined);
    if (config.log.backend === 'embedded') {
      // While this process holds the embedded log, `flowagg offsets` reaches it through this API.
      const token = serveLogAdmin(http, log.admin());
      unpublish = publishLogApi(config.log.embedded.dir, { url: apiUrl(config.apiServer.bindAddress, httpPort), token });
    }
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
    logger.info({ signal: await stop.requested }, 'stopping');
  } finally {
    process.off('SIGHUP', reload);
    unpublish();
    watcher?.close();
    await http.close();
    await flowStream?.stop().catch((err: unknown) => logger.error({ err }, 'the flow stream service did not stop cleanly'));
    await ingest.stop().catch((err: unknown) => logger.error({ err }, 'ingest did not stop cleanly'));
    await log.close();
    stop.dispose();
  }
  return 0;
}
