// The export runner: what every destination shares (docs/exporters.md). Each exporter kind is its own
// consumer group on flows.processed (read_committed); each assigned partition gets a PartitionWorker that
// cuts batches from offsets, records each batch's range before delivering it, delivers with retries and
// backoff, and commits only once the destination took the batch. So an outage or a crash delays records
// and never loses them; after a crash, the batch that was in flight is delivered again (counted in
// flowagg_export_redelivered_records_total), with the same id.
//
// A destination is never a reason to fail: createExportRunner() is inert; start() reads the recorded
// batch ranges, joins the group and starts the exporter in the background, again and again with
// backoff until its destination answers (so `flowagg run` collects and processes whatever the
// destinations do). Meanwhile, and through any later outage, records wait in the log; the destination's
// state is logged once per change, shown in /readyz detail (destination-health.ts), and measured: the
// lag per partition (the log end is read every probeIntervalMs, also while consumption is paused) and
// the age of the oldest record read and not yet accepted. stop() finishes every batch in flight within
// stopTimeoutMs, commits, leaves the group and stops the exporter.
import { FlowaggError, errorMessage } from '../lib/errors.js';
import type { BackoffPolicy } from '../lib/retry.js';
import { Lifecycle, type Readiness } from '../lib/service/lifecycle.js';
import type { Service } from '../lib/service/service.js';
import type { TopicsConfig } from '../lib/log/topics.js';
import type { Consumer, MessageLog, TopicPartition } from '../lib/log/types.js';
import { componentLogger, type Logger } from '../lib/telemetry/logger.js';
import { Backlog } from './backlog.js';
import { BatchIntents } from './batch-intents.js';
import { DestinationHealth } from './destination-health.js';
import { EXPORT_NO_WORKER, EXPORT_STATE } from './errors.js';
import { type ExporterStart, startInBackground } from './exporter-start.js';
import { FlowValues } from './flow-values.js';
import { partitionSeries } from './metrics.js';
import { PartitionWorker } from './partition-worker.js';
import type { Exporter } from './types.js';

export interface RunnerConfig {
  readonly topics: TopicsConfig;
  /** Default `flowagg-export-<kind>`. */
  readonly groupId?: string;
  /** How long stop() waits for the batches in flight. Default 10 s. */
  readonly stopTimeoutMs?: number;
  /** Retries of the exporter's start and of deliveries: the first wait and the cap (1 s doubling to 30 s by default). */
  readonly backoff?: BackoffPolicy;
  /** How often the log end and the oldest waiting record are read for the metrics. Default 5 s. */
  readonly probeIntervalMs?: number;
}

export interface RunnerDeps {
  readonly log: MessageLog;
  readonly exporter: Exporter;
  readonly logger?: Logger;
  readonly now?: () => number;
  /** Reads flows.processed's values. Default: single-object framing (any schema of schemas/history). */
  readonly values?: FlowValues;
}

export interface RunnerStats {
  readonly delivered: number;
  /** Records read from the log and not yet delivered. */
  readonly waiting: number;
  readonly partitions: number;
  readonly retrying: number;
}

/**
 * Ready while running, whatever its destination does (a Pod not ready would get no more records from the
 * Agents); while the destination is unreachable, the readiness detail says since when.
 */
export interface ExportRunner extends Service {
  readonly kind: Exporter['kind'];
  readonly groupId: string;
  stats(): RunnerStats;
}

const tpKey = (tp: TopicPartition) => `${tp.topic}/${tp.partition}`;

export function createExportRunner(config: RunnerConfig, deps: RunnerDeps): ExportRunner {
  const { log, exporter } = deps;
  const kind = exporter.kind;
  const groupId = config.groupId ?? `flowagg-export-${kind}`;
  const topic = config.topics.flowsProcessed;
  const stopTimeoutMs = config.stopTimeoutMs ?? 10_000;
  const backoff = config.backoff ?? { initialMs: 1000, maxMs: 30_000 };
  const logger = deps.logger ?? componentLogger('export', { exporter: kind });
  const now = deps.now ?? Date.now;
  const values = deps.values ?? new FlowValues();
  const workers = new Map<string, PartitionWorker>();
  let delivered = 0;
  const lifecycle = new Lifecycle(`export runner ${kind}`, EXPORT_STATE, logger);
  const health = new DestinationHealth(kind, logger, now);
  const backlog = new Backlog(log, topic, kind, () => [...workers.values()], now);
  const stopping = new AbortController();
  let consumer: Consumer | undefined;
  let intents: BatchIntents | undefined;
  let exporterStart: ExporterStart | undefined;

  const control = {
    pause: (tp: TopicPartition) => consumer?.pause([tp]),
    resume: (tp: TopicPartition) => consumer?.resume([tp]),
    commit: (tp: TopicPartition, offset: number) => consumer!.commit([{ ...tp, offset }]),
  };

  async function stopWorkers(partitions: readonly TopicPartition[]): Promise<void> {
    await Promise.all(
      partitions.map(async (tp) => {
        const w = workers.get(tpKey(tp));
        workers.delete(tpKey(tp));
        await w?.stop(stopTimeoutMs);
      }),
    );
  }

  async function release(): Promise<void> {
    backlog.stop();
    stopping.abort();
    await stopWorkers([...workers.values()].map((w) => w.tp));
    await consumer?.stop();
    consumer = undefined;
    await exporterStart?.done;
    await intents?.close();
    intents = undefined;
    await exporter.stop();
  }

  /** The group's committed offsets on flows.processed, by partition (none when the log cannot say now). */
  async function committedOffsets(): Promise<Map<number, number | null>> {
    try {
      const lag = await log.admin().fetchGroupLag(groupId);
      return new Map(lag.filter((l) => l.topic === topic).map((l) => [l.partition, l.committed]));
    } catch (err) {
      logger.warn({ err: errorMessage(err) }, 'cannot read the committed offsets: records removed by retention before the first read would not be counted');
      return new Map();
    }
  }

  async function start(): Promise<void> {
    await log.admin().createTopics([{ topic, partitions: config.topics.flowsProcessedPartitions, cleanupPolicy: 'delete' }]);
    const ranges = (intents = await BatchIntents.open(log, config.topics.exportBatches, groupId, logger, (err) => lifecycle.fail(err)));
    const { started } = (exporterStart = startInBackground(exporter, { backoff, signal: stopping.signal, health, logger }));
    const logStart = async (partition: number) => {
      const offsets = await log.admin().fetchTopicOffsets(topic);
      return offsets.find((o) => o.partition === partition)?.low ?? 0;
    };
    // Consumer batches no larger than a delivery batch keep what waits per partition under 3 × maxRecords.
    consumer = log.consumer({ groupId, isolation: 'read_committed', startFrom: 'earliest', maxBatchRecords: exporter.batching.maxRecords });
    await consumer.subscribe([topic]);
    await consumer.run({
      onAssign: async (partitions) => {
        await ranges.caughtUp();
        const committed = await committedOffsets();
        for (const tp of partitions) {
          const series = partitionSeries(kind, tp.partition);
          const metrics = {
            ...series,
            delivered: (n: number, seconds: number) => {
              delivered += n;
              series.delivered(n, seconds);
            },
          };
          const worker = new PartitionWorker(
            tp,
            { exporter, intents: ranges, control, values, metrics, logger: logger.child({ partition: tp.partition }), backoff, now, health, started, logStart: () => logStart(tp.partition) },
            committed.get(tp.partition) ?? null,
          );
          workers.set(tpKey(tp), worker);
        }
        logger.info({ partitions: partitions.map((p) => p.partition) }, 'partitions assigned');
      },
      onRevoke: async (partitions) => {
        await stopWorkers(partitions);
        logger.info({ partitions: partitions.map((p) => p.partition) }, 'partitions revoked');
      },
      eachBatch: async (batch) => {
        const worker = workers.get(tpKey(batch));
        // Consumers deliver only assigned partitions, after onAssign: a batch without a worker is a bug, never skipped.
        if (worker === undefined) throw new FlowaggError(EXPORT_NO_WORKER, `export runner ${kind}: a batch of ${batch.topic}-${batch.partition}, a partition it has no worker for`, { context: { topic: batch.topic, partition: batch.partition, offset: batch.records[0]?.offset ?? -1 } });
        await worker.append(batch.records, batch.highWatermark);
      },
      onFailure: (err) => lifecycle.fail(err),
    });
    backlog.start(config.probeIntervalMs ?? 5000, logger);
    logger.info({ groupId, topic, batching: exporter.batching }, 'exporter running (its destination is reached in the background)');
  }

  return {
    name: `export.${kind}`,
    kind,
    groupId,
    get state() {
      return lifecycle.state;
    },
    start: () => lifecycle.start(start, release),
    stop: () => lifecycle.stop(async () => {
      await release();
      logger.info('exporter stopped');
    }),
    onFailure: (listener) => lifecycle.onFailure(listener),
    stats() {
      const all = [...workers.values()];
      return {
        delivered,
        waiting: all.reduce((n, w) => n + w.waiting, 0),
        partitions: all.length,
        retrying: all.filter((w) => w.state.kind === 'retrying').length,
      };
    },
    readiness: (): Readiness => lifecycle.readiness(() => {
      const detail = health.detail();
      return detail === undefined ? { ready: true } : { ready: true, detail: `exporter ${kind}: ${detail} (${backlog.describe()})` };
    }),
  };
}
