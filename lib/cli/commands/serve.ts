// What `flowagg ingest`, `flowagg process`, `flowagg export` and `flowagg run` share: load the
// configuration, open the log, start the services and the telemetry HTTP server, and run until SIGINT or
// SIGTERM, then stop them: ingest first (no new input), then the processor (it commits what it
// processed), the exporters last (they finish their batches in flight).
import { formatDiagnostic, loadConfig } from '../../config/load.js';
import { ConfigWatcher } from '../../config/watch.js';
import { publishLogApi, serveLogAdmin } from '../../log/admin-api.js';
import { openLog } from '../../log/index.js';
import { topicValueFraming } from '../../log/value-format.js';
import { FLOW_RECORD_SCHEMA } from '../../../schemas/flow-record.js';
import { FlowRecordDecoder } from '../../../schemas/flow-record-decoder.js';
import { type MessageLog } from '../../log/types.js';
import { TelemetryServer } from '../../telemetry/http.js';
import { componentLogger } from '../../telemetry/logger.js';
import { openMetadataSource } from '../../k8s/index.js';
import { type MetadataSource } from '../../k8s/metadata.js';
import { listenForStop } from '../stop-signals.js';
import { createIngest, type Ingest } from '../../../ingest/index.js';
import { flowRecords, flowRecordsFilter, processorRecordMetrics } from '../../../processor/api.js';
import { createProcessor, type Processor } from '../../../processor/index.js';
import { EXPORTER_MODULES } from '../../../exporters/index.js';
import { type ExporterModule, findExporter } from '../../../exporters/registry.js';
import { createExportRunner, type ExportRunner } from '../../../exporters/runner.js';
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

/** `withoutFile`: the YAML read in place of a file when --config names none (`flowagg run`'s quick start). */
export function loadServiceConfig(args: ParsedArgs, overrides: Record<string, unknown> = {}, withoutFile?: string): ServiceConfig {
  const logger = componentLogger('config');
  const file = fileOf(args);
  return loadConfig(serviceConfigSchema, {
    ...(file.file === undefined && withoutFile !== undefined ? { text: withoutFile } : file),
    overrides,
    report: (d) => logger[d.level === 'warning' ? 'warn' : 'info']({ ...d }, formatDiagnostic(d)),
  });
}

/**
 * Antrea's /recordmetrics shape, with the figures of the services this process runs: numRecordsExported
 * is what the exporters delivered, or with none here what the processor committed to flows.processed.
 */
function recordMetrics(ingest: Ingest | undefined, processor: Processor | undefined, runners: readonly ExportRunner[]) {
  const s = ingest?.stats();
  const p = processor === undefined ? undefined : processorRecordMetrics(processor);
  const kinds = new Set(runners.map((r) => r.kind));
  return {
    numRecordsExported: runners.length > 0 ? runners.reduce((n, r) => n + r.stats().delivered, 0) : (p?.numRecordsExported ?? 0),
    numRecordsReceived: s?.records ?? p?.numRecordsProcessed ?? 0,
    numFlows: p?.numFlows ?? 0,
    numConnectionsToCollector: s === undefined ? 0 : s.streamSessions + s.udpExporters,
    numRecordsWritten: s?.written ?? 0,
    numRecordsDropped: (s?.droppedRecords ?? 0) + (p?.numRecordsDropped ?? 0),
    numRecordsLostInTransit: s?.lostInTransit ?? 0,
    numSetsSkipped: s?.skippedSets ?? 0,
    numBytesSkipped: s?.skippedBytes ?? 0,
    ...(p !== undefined && { numRecordsProcessed: p.numRecordsProcessed }),
    withClickHouseExporter: kinds.has('clickhouse'),
    withS3Exporter: kinds.has('s3'),
    withLogExporter: kinds.has('flowlog'),
    withIPFIXExporter: kinds.has('ipfix'),
  };
}

/** The exporters a command runs: the named ones, or every one whose section is enabled. */
function exportersOf(config: ServiceConfig, which: ServeOptions['exporters']): ExporterModule<ServiceConfig>[] {
  if (which === undefined) return [];
  if (which === 'enabled') return EXPORTER_MODULES.filter((m) => m.enabled(config));
  return which.map((kind) => findExporter(EXPORTER_MODULES, kind));
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
  /** Default true. */
  readonly ingest?: boolean;
  /** Default false. */
  readonly processor?: boolean;
  /** Exporters to run: by kind, or every enabled one; none by default. */
  readonly exporters?: readonly string[] | 'enabled';
  readonly signal?: AbortSignal;
  /** Told the bound ports once everything runs (tests use port 0). */
  readonly onStarted?: (ports: { readonly http: number; readonly collectors: Readonly<Record<string, number>> }) => void;
}

export async function serve(config: ServiceConfig, opts: ServeOptions): Promise<number> {
  const logger = componentLogger(opts.command);
  const modules = exportersOf(config, opts.exporters);
  const log: MessageLog = await openLog(config.log);
  // Registers the FlowRecord schema when log.valueFormat is confluent; a registry that cannot be reached stops the start.
  const framing = await topicValueFraming(config.log, config.log.topics.flowsRaw, FLOW_RECORD_SCHEMA).catch(async (err: unknown) => {
    await log.close();
    throw err;
  });
  const stop = listenForStop(logger, opts.signal);
  const ingest = opts.ingest === false ? undefined : createIngest(config, { log, framing });
  const metadata: MetadataSource | undefined = opts.processor === true ? openMetadataSource(config.kubernetes) : undefined;
  let processor: Processor | undefined;
  const runners: ExportRunner[] = [];
  // Services subscribe to the keys they apply live (watcher.subscribe); ingest has none (Antrea restarts for its keys).
  const watcher = opts.file === undefined ? undefined : new ConfigWatcher(serviceConfigSchema, config, { file: opts.file, logger: componentLogger('config') });
  const reload = () => void watcher?.reload();
  const http = new TelemetryServer();
  let unpublish = () => {};
  if (ingest !== undefined) http.addReadinessCheck('ingest', () => ingest.readiness());
  if (metadata !== undefined) http.addReadinessCheck('kubernetes', () => metadata.readiness());
  http.addJsonRoute('/recordmetrics', () => recordMetrics(ingest, processor, runners));
  let flowStream: FlowStream | undefined;
  try {
    await ingest?.start();
    if (opts.processor === true) {
      const output = await topicValueFraming(config.log, config.log.topics.flowsProcessed, FLOW_RECORD_SCHEMA);
      const running = createProcessor(config, { log, framing: output, inputFraming: framing, ...(metadata && { metadata }) });
      processor = running;
      http.addReadinessCheck('processor', () => running.readiness());
      http.addJsonRoute('/flowrecords', (url) => flowRecords(running, flowRecordsFilter(url)));
      watcher?.subscribe((c) => c.recordContents.podLabels, (on) => running.setPodLabels(on));
      await metadata?.ready();
      await running.start();
    }
    if (ingest !== undefined && config.flowStreamService.enable) {
      const topics = config.log.topics;
      flowStream = createFlowStream({
        flowStreamService: config.flowStreamService, host: config.ingest.host, tls: config.ingest.tls,
        flowAggregatorAddress: config.flowAggregatorAddress, topic: topics.flowsProcessed, partitions: topics.flowsProcessedPartitions,
      }, { log });
      await flowStream.start();
    }
    // Values of flows.processed framed with a schema registry id (log.valueFormat confluent) decode with it.
    const processed = modules.length === 0 ? undefined : await topicValueFraming(config.log, config.log.topics.flowsProcessed, FLOW_RECORD_SCHEMA);
    const decoder = new FlowRecordDecoder(processed?.kind === 'confluent' ? processed.schemaId : undefined);
    const startRunner = async (m: ExporterModule<ServiceConfig>, c: ServiceConfig) => {
      const runner = createExportRunner({ log, topics: c.log.topics, exporter: m.create(c, { log }), decoder });
      await runner.start();
      return runner;
    };
    for (const m of modules) {
      let runner: ExportRunner | undefined = await startRunner(m, config);
      runners.push(runner);
      http.addReadinessCheck(`export.${m.kind}`, () => runner?.readiness() ?? { ready: true, detail: `${m.section} disabled` });
      // As Antrea does, an exporter whose section changed is stopped and started again with the new section.
      watcher?.subscribe(
        (c) => (c as Record<string, unknown>)[m.section],
        async (section) => {
          const next = { ...config, [m.section]: section } as ServiceConfig;
          if (runner !== undefined) {
            logger.info({ exporter: m.kind }, `${m.section} changed: replacing the exporter`);
            await runner.stop();
            runners.splice(runners.indexOf(runner), 1);
            runner = undefined;
          }
          if (opts.exporters === 'enabled' && !m.enabled(next)) return;
          runner = await startRunner(m, next);
          runners.push(runner);
        },
      );
    }
    watcher?.start();
    process.on('SIGHUP', reload);
    const httpPort = await http.listen(config.apiServer.apiPort, config.apiServer.bindAddress || undefined);
    if (config.log.backend === 'embedded') {
      // While this process holds the embedded log, `flowagg offsets` reaches it through this API.
      const token = serveLogAdmin(http, log.admin());
      unpublish = publishLogApi(config.log.embedded.dir, { url: apiUrl(config.apiServer.bindAddress, httpPort), token });
    }
    const notRunning = opts.notRunning ?? [];
    logger.info(
      {
        log: config.log.backend === 'embedded' ? { backend: 'embedded', dir: config.log.embedded.dir } : { backend: 'kafka', brokers: config.log.kafka?.brokers },
        ...(ingest && { collectors: ingest.ports }),
        ...(processor && { processor: config.mode }),
        ...(flowStream && { flowStreamService: flowStream.port }),
        exporters: runners.map((r) => r.kind),
        http: httpPort,
        ...(notRunning.length > 0 && { notRunning }),
      },
      notRunning.length > 0 ? `flowagg ${opts.command} running; not implemented yet: ${notRunning.join(', ')}` : `flowagg ${opts.command} running`,
    );
    opts.onStarted?.({ http: httpPort, collectors: ingest?.ports ?? {} });
    logger.info({ signal: await stop.requested }, 'stopping');
  } finally {
    process.off('SIGHUP', reload);
    unpublish();
    watcher?.close();
    await http.close();
    await flowStream?.stop().catch((err: unknown) => logger.error({ err }, 'the flow stream service did not stop cleanly'));
    await ingest?.stop().catch((err: unknown) => logger.error({ err }, 'ingest did not stop cleanly'));
    await processor?.stop().catch((err: unknown) => logger.error({ err }, 'the processor did not stop cleanly'));
    await metadata?.close().catch((err: unknown) => logger.error({ err }, 'the Kubernetes metadata source did not close cleanly'));
    for (const r of runners.reverse()) await r.stop().catch((err: unknown) => logger.error({ err, exporter: r.kind }, 'exporter did not stop cleanly'));
    await log.close();
    stop.dispose();
  }
  return 0;
}
