// The processor of `flowagg run` and `flowagg process`: in this thread (processor.threads 0), or as one
// processor per worker thread, each a member of the processor's group, so that flows.raw's partitions
// are processed on as many cores (processor/thread/threaded-processor.ts). Either way one readiness
// check, one /flowrecords over every partition of this process, and podLabels applied live to all.
import { availableParallelism } from 'node:os';
import type { ConfigWatcher } from '../lib/config/watch.js';
import { openMetadataSource } from '../lib/k8s/index.js';
import type { MessageLog } from '../lib/log/types.js';
import type { AvroFraming } from '../lib/log/value-format.js';
import { topicValueFraming } from '../lib/log/value-format.js';
import type { Service } from '../lib/service/service.js';
import type { ServiceStack } from '../lib/service/stack.js';
import type { Supervisor } from '../lib/service/supervisor.js';
import type { TelemetryServer } from '../lib/telemetry/http.js';
import { componentLogger } from '../lib/telemetry/logger.js';
import type { JsonObject } from '../schemas/flow-record-json.js';
import { FLOW_RECORD_SCHEMA } from '../schemas/flow-record.js';
import { type FlowRecordsFilter, flowRecords, flowRecordsFilter } from '../processor/api.js';
import { type ProcessorStats, createProcessor } from '../processor/index.js';
import { ThreadedProcessor } from '../processor/thread/threaded-processor.js';
import type { ServiceConfig, serviceConfigSchema } from './service-config.js';

export interface ProcessorsDeps {
  readonly log: MessageLog;
  readonly inputFraming: AvroFraming;
  readonly http: TelemetryServer;
  readonly services: ServiceStack;
  readonly supervise: <S extends Service>(create: () => S) => Supervisor<S>;
  readonly watcher: ConfigWatcher<typeof serviceConfigSchema> | undefined;
}

export interface RunningProcessors {
  /** Flows held now, over every processor of this process (/recordmetrics' numFlows). */
  flows(): Promise<number>;
}

/** What this program asks of a processor, in this thread or on another. */
interface ProcessorView extends Service {
  setPodLabels(on: boolean): unknown;
  flowRecords(filter: FlowRecordsFilter): JsonObject[] | Promise<JsonObject[]>;
  stats(): ProcessorStats | Promise<ProcessorStats>;
}

/**
 * processor.threads: `auto` leaves one core to this thread (the log, ingest), and a thread without a
 * partition would idle. On two cores it is one all the same: with the exporters on theirs, ingest then
 * takes 38 % more records, and 18 % more get through, at 7 % more CPU per record (docs/benchmarks.md,
 * "Threads"); on one core, none.
 */
export function processorThreads(config: ServiceConfig, cores = availableParallelism()): number {
  const { threads } = config.processor;
  if (threads !== 'auto') return threads;
  return cores < 2 ? 0 : Math.min(config.log.topics.flowsRawPartitions, Math.max(1, cores - 1));
}

export async function startProcessors(config: ServiceConfig, deps: ProcessorsDeps): Promise<RunningProcessors> {
  const { http, services, supervise, watcher } = deps;
  const framing = await topicValueFraming(config.log, config.log.topics.flowsProcessed, FLOW_RECORD_SCHEMA);
  const threads = processorThreads(config);
  // A restarted processor applies the podLabels set live since the start.
  let podLabels = config.recordContents.podLabels;
  const create = await processorFactory(config, deps, framing, threads);
  const running = Array.from({ length: Math.max(1, threads) }, (_, i) => supervise(() => create(i + 1, podLabels)));
  http.addReadinessCheck('processor', () => {
    const notReady = running.map((r) => r.readiness()).find((r) => !r.ready);
    return notReady ?? { ready: true, ...(threads > 0 && { detail: `${threads} threads` }) };
  });
  http.addJsonRoute('/flowrecords', async (url) => {
    const filter = flowRecordsFilter(url);
    const out: JsonObject[] = [];
    for (const r of running) out.push(...(await r.current.flowRecords({ ...filter, limit: filter.limit - out.length })));
    return out;
  });
  watcher?.subscribe((c) => c.recordContents.podLabels, async (on) => {
    podLabels = on;
    await Promise.all(running.map((r) => r.current.setPodLabels(on)));
  });
  for (const r of running) await services.start(r);
  return { flows: async () => (await Promise.all(running.map(async (r) => (await r.current.stats()).flows))).reduce((a, b) => a + b, 0) };
}

/** In this thread, the processor's metadata source is this thread's; on threads, each opens its own. */
async function processorFactory(config: ServiceConfig, deps: ProcessorsDeps, framing: AvroFraming, threads: number): Promise<(index: number, podLabels: boolean) => ProcessorView> {
  const { log, inputFraming } = deps;
  if (threads > 0) {
    componentLogger('processor').info({ threads }, `the processor runs on ${threads} worker thread${threads === 1 ? '' : 's'}`);
    return (index, podLabels) => new ThreadedProcessor(config, { log, framing, inputFraming, podLabels }, index);
  }
  const metadata = await openMetadataSource(config.kubernetes);
  if (metadata !== undefined) {
    deps.http.addReadinessCheck('kubernetes', () => metadata.readiness());
    deps.services.push({ name: 'kubernetes', stop: () => metadata.close() });
    await metadata.ready();
  }
  return (_, podLabels) => {
    const p = createProcessor(config, { log, framing, inputFraming, ...(metadata && { metadata }) });
    p.setPodLabels(podLabels);
    return Object.assign(p, { flowRecords: (filter: FlowRecordsFilter) => flowRecords(p, filter) });
  };
}
