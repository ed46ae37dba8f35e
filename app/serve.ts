// What `flowagg ingest`, `flowagg process`, `flowagg export` and `flowagg run` share: load the
// configuration, open the log, start the services and the telemetry HTTP server, and run until SIGINT or
// SIGTERM, then stop them in the reverse order of their start: the exporters start first and the
// collectors last, so ingest stops first (no new input), then the processor (it commits what it
// processed), the exporters last (they finish their batches in flight). Each service runs under a
// supervisor (lib/service/supervisor.ts): one that keeps failing at runtime ends the command with 1.
import { formatDiagnostic, loadConfig } from '../lib/config/load.js';
import { ConfigWatcher } from '../lib/config/watch.js';
import { publishLogApi, serveLogAdmin } from '../lib/log/admin-api.js';
import { openLog } from '../lib/log/index.js';
import { topicValueFraming } from '../lib/log/value-format.js';
import { FLOW_RECORD_SCHEMA } from '../schemas/flow-record.js';
import { FlowValues } from '../exporters/flow-values.js';
import type { MessageLog } from '../lib/log/types.js';
import { TelemetryServer } from '../lib/telemetry/http.js';
import { type RunningApiServer, startApiServer } from '../lib/apiserver/start.js';
import { serveAntreaRoutes } from '../lib/apiserver/routes.js';
import { componentLogger } from '../lib/telemetry/logger.js';
import type { LogConfig } from '../lib/log/config.js';
import { supervisionPolicy } from '../lib/service/config.js';
import { Supervisor } from '../lib/service/supervisor.js';
import { ServiceStack } from '../lib/service/stack.js';
import { listenForStop } from './cli/stop-signals.js';
import type { Service } from '../lib/service/service.js';
import { createIngestService } from '../ingest/thread/threaded-ingest.js';
import { EXPORTER_MODULES } from './exporters/index.js';
import { type ExporterModule, findExporter } from './exporters/registry.js';
import { createExportRunner } from '../exporters/runner.js';
import { type ExportService, ThreadedExportRunner, exportThreads } from './exporters/thread/threaded-runner.js';
import { createFlowStream, type FlowStream } from '../exporters/flowstream/index.js';
import { type ParsedArgs, stringOption } from './cli/command.js';
import { startExplorer } from './explorer.js';
import { type ServiceConfig, serviceConfigSchema } from './service-config.js';
import { recordMetrics } from './record-metrics.js';
import { type RunningProcessors, startProcessors } from './processors.js';
import { programVersion } from './version.js';

export const SERVICE_OPTIONS = {
  config: { type: 'string' },
} as const;

export function fileOf(args: ParsedArgs): { file?: string } {
  const file = stringOption(args, 'config');
  return file === undefined ? {} : { file };
}

/**
 * Read in place of a file by `flowagg ingest` and `flowagg run` when --config names none: UDP and TCP
 * collectors, which any IPFIX exporter (softflowd, `flowagg simulate`) reaches without certificates. With a
 * file, Antrea's default holds (TLS), so that an Antrea flow-aggregator.conf means what it meant there.
 */
export const NO_FILE_CONFIG = 'aggregatorTransportProtocol: [udp, tcp]\n';

/** `withoutFile`: the YAML read in place of a file when --config names none (NO_FILE_CONFIG, or `flowagg run`'s quick start). */
export function loadServiceConfig(args: ParsedArgs, overrides: Record<string, unknown> = {}, withoutFile?: string): ServiceConfig {
  const logger = componentLogger('config');
  const file = fileOf(args);
  return loadConfig(serviceConfigSchema, {
    ...(file.file === undefined && withoutFile !== undefined ? { text: withoutFile } : file),
    overrides,
    report: (d) => logger[d.level === 'warning' ? 'warn' : 'info']({ ...d }, formatDiagnostic(d)),
  });
}

/** The exporters a command runs: the named ones, or every one whose section is enabled. */
function exportersOf(config: ServiceConfig, which: ServeOptions['exporters']): ExporterModule<ServiceConfig>[] {
  if (which === undefined) return [];
  if (which === 'enabled') return EXPORTER_MODULES.filter((m) => m.enabled(config));
  return which.map((kind) => findExporter(EXPORTER_MODULES, kind));
}

export interface ServeOptions {
  readonly command: string;
  /** The configuration file, watched for changes (hot reload). */
  readonly file?: string;
  /** The command line's key overrides (loadServiceConfig's), applied again to each reloaded file. */
  readonly overrides?: Record<string, unknown>;
  /** Said in the startup log: what this command runs, and what it does not run yet. */
  readonly notRunning?: readonly string[];
  /** Default true. */
  readonly ingest?: boolean;
  /** Default false. */
  readonly processor?: boolean;
  /** The flow explorer (its page and API on the HTTP server); default false. */
  readonly explorer?: boolean;
  /** Exporters to run: by kind, or every enabled one; none by default. */
  readonly exporters?: readonly string[] | 'enabled';
  readonly signal?: AbortSignal;
  /** Told the bound ports once everything runs (tests use port 0). */
  readonly onStarted?: (ports: { readonly http: number; readonly collectors: Readonly<Record<string, number>> }) => void;
  /** Opens the log (tests wrap it to inject failures); lib/log's openLog by default. */
  readonly openLog?: (config: LogConfig) => Promise<MessageLog>;
}

/**
 * The threads that read the log run below the main thread's priority so that ingest, in the same process,
 * goes first (lib/thread/priority.ts). A process without ingest has nothing for them to yield to, and nice
 * values rank threads against every process on the machine: there they keep the process's priority.
 */
export function withoutNiceness(config: ServiceConfig): ServiceConfig {
  return { ...config, processor: { ...config.processor, niceness: 0 }, exporters: { ...config.exporters, niceness: 0 } };
}

export async function serve(config: ServiceConfig, opts: ServeOptions): Promise<number> {
  const logger = componentLogger(opts.command);
  const modules = exportersOf(config, opts.exporters);
  const log: MessageLog = await (opts.openLog ?? openLog)(config.log);
  // Registers the FlowRecord schema when log.valueFormat is confluent; a registry that cannot be reached stops the start.
  const framing = await topicValueFraming(config.log, config.log.topics.flowsRaw, FLOW_RECORD_SCHEMA).catch(async (err: unknown) => {
    await log.close();
    throw err;
  });
  const stop = listenForStop(logger, opts.signal);
  let gaveUp: (err: unknown) => void = () => {};
  const failed = new Promise<'failed'>((resolve) => (gaveUp = () => resolve('failed')));
  const supervise = <S extends Service>(create: () => S): Supervisor<S> => {
    const supervisor = new Supervisor(create, { logger, policy: supervisionPolicy(config.supervision) });
    supervisor.onFailure(gaveUp);
    return supervisor;
  };
  const services = new ServiceStack(logger);
  const ingest = opts.ingest === false ? undefined : supervise(() => createIngestService(config, { log, framing }));
  const withIngest = (c: ServiceConfig) => (ingest === undefined ? withoutNiceness(c) : c);
  let processors: RunningProcessors | undefined;
  /** Per exporter module, the runner of its current section (none while it is disabled). */
  const runners = new Map<string, Supervisor<ExportService> | undefined>();
  const liveRunners = () => [...runners.values()].flatMap((r) => (r === undefined ? [] : [r.current]));
  // Services subscribe to the keys they apply live (watcher.subscribe); ingest has none (Antrea restarts for its keys).
  const watcher = opts.file === undefined ? undefined : new ConfigWatcher(serviceConfigSchema, config, { file: opts.file, logger: componentLogger('config'), ...(opts.overrides && { overrides: opts.overrides }) });
  const reload = () => void watcher?.reload();
  const http = new TelemetryServer();
  let api: RunningApiServer | undefined;
  let unpublish = () => {};
  if (ingest !== undefined) http.addReadinessCheck('ingest', () => ingest.readiness());
  serveAntreaRoutes(http, programVersion());
  http.addJsonRoute('/recordmetrics', () => recordMetrics({ ingest: ingest?.current, processors, runners: liveRunners() }));
  let flowStream: FlowStream | undefined;
  try {
    // Values of flows.processed framed with a schema registry id (log.valueFormat confluent) decode with it.
    const processed = modules.length === 0 ? undefined : await topicValueFraming(config.log, config.log.topics.flowsProcessed, FLOW_RECORD_SCHEMA);
    const schemaId = processed?.kind === 'confluent' ? processed.schemaId : undefined;
    const values = new FlowValues(schemaId);
    const threads = exportThreads(config);
    const runnerOf = (m: ExporterModule<ServiceConfig>, c: ServiceConfig) => supervise<ExportService>(() => (threads
      ? new ThreadedExportRunner(withIngest(c), m.kind, { log, schemaId })
      : createExportRunner({ topics: c.log.topics }, { log, exporter: m.create(c, { log }), values })));
    for (const m of modules) {
      const first = runnerOf(m, config);
      await first.start();
      runners.set(m.kind, first);
      services.push({ name: `export.${m.kind}`, stop: async () => void (await runners.get(m.kind)?.stop()) });
      http.addReadinessCheck(`export.${m.kind}`, () => runners.get(m.kind)?.readiness() ?? { ready: true, detail: `${m.section} disabled` });
      // As Antrea does, an exporter whose section changed is stopped and started again with the new section.
      watcher?.subscribe(
        (c) => (c as Record<string, unknown>)[m.section],
        async (section) => {
          const next = { ...config, [m.section]: section } as ServiceConfig;
          const runner = runners.get(m.kind);
          if (runner !== undefined) {
            logger.info({ exporter: m.kind }, `${m.section} changed: replacing the exporter`);
            runners.set(m.kind, undefined);
            await runner.stop();
          }
          if (opts.exporters === 'enabled' && !m.enabled(next)) return;
          const replacement = runnerOf(m, next);
          await replacement.start();
          runners.set(m.kind, replacement);
        },
      );
    }
    if (opts.processor === true) processors = await startProcessors(withIngest(config), { log, inputFraming: framing, http, services, supervise, watcher });
    if (opts.explorer === true) await startExplorer(config, { log, http, services, supervise, rawFraming: framing });
    if (ingest !== undefined && config.flowStreamService.enable) {
      flowStream = await services.start(createFlowStream(config, { log }));
    }
    if (ingest !== undefined) await services.start(ingest);
    watcher?.start();
    process.on('SIGHUP', reload);
    api = await startApiServer(http, config.apiServer, { logger: componentLogger('api'), ...(config.kubernetes.kubeconfig !== undefined && { kubeconfig: config.kubernetes.kubeconfig }) });
    const httpPort = api.port;
    if (config.log.backend === 'embedded') {
      // While this process holds the embedded log, `flowagg offsets` and `flowagg get` reach it through this API.
      serveLogAdmin(http, log.admin(), api.token);
      unpublish = publishLogApi(config.log.embedded.dir, { url: api.url, token: api.token, ...(api.ca !== undefined && { ca: api.ca }) });
    }
    const notRunning = opts.notRunning ?? [];
    logger.info(
      {
        log: config.log.backend === 'embedded' ? { backend: 'embedded', dir: config.log.embedded.dir } : { backend: 'kafka', brokers: config.log.kafka?.brokers },
        ...(ingest && { collectors: ingest.current.ports }),
        ...(processors && { processor: config.mode }),
        ...(flowStream && { flowStreamService: flowStream.port }),
        exporters: liveRunners().map((r) => r.kind),
        ...(opts.explorer === true && { explorer: `${api.url}/` }),
        http: httpPort,
        ...(notRunning.length > 0 && { notRunning }),
      },
      notRunning.length > 0 ? `flowagg ${opts.command} running; not implemented yet: ${notRunning.join(', ')}` : `flowagg ${opts.command} running`,
    );
    opts.onStarted?.({ http: httpPort, collectors: ingest?.current.ports ?? {} });
    const why = await Promise.race([stop.requested, failed]);
    if (why === 'failed') {
      logger.error('a service kept failing: stopping, to be restarted (exit status 1)');
      return 1;
    }
    logger.info({ signal: why }, 'stopping');
  } finally {
    process.off('SIGHUP', reload);
    unpublish();
    watcher?.close();
    await (api?.close() ?? http.close());
    await services.stopAll();
    await log.close();
    stop.dispose();
  }
  return 0;
}
