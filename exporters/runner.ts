// The export runner: what every destination shares (docs/exporters.md). Each exporter kind is its own
// consumer group on flows.processed (read_committed); each assigned partition gets a PartitionWorker that
// cuts batches from offsets, records each batch's range before delivering it, delivers with retries and
// backoff, and commits only once the destination took the batch. So an outage or a crash delays records
// and never loses them; after a crash, the batch that was in flight is delivered again (counted in
// flowagg_export_redelivered_records_total), with the same id.
//
// createExportRunner() is inert; start() starts the exporter (which checks its destination), reads the
// recorded batch ranges and joins the group; stop() finishes every batch in flight within stopTimeoutMs,
// commits, leaves the group and stops the exporter.
import { FlowaggError } from '../lib/errors.js';
import { type BackoffPolicy } from '../lib/retry.js';
import { Lifecycle, type Readiness } from '../lib/service/lifecycle.js';
import { type Service } from '../lib/service/service.js';
import { type TopicsConfig } from '../lib/log/topics.js';
import { type Consumer, type MessageLog, type TopicPartition } from '../lib/log/types.js';
import { componentLogger, type Logger } from '../lib/telemetry/logger.js';
import { FlowRecordDecoder } from '../schemas/flow-record-decoder.js';
import { BatchIntents } from './batch-intents.js';
import { EXPORT_NO_WORKER, EXPORT_STATE } from './errors.js';
import { partitionSeries } from './metrics.js';
import { PartitionWorker } from './partition-worker.js';
import { type Exporter } from './types.js';

export interface RunnerConfig {
  readonly topics: TopicsConfig;
  /** Default `flowagg-export-<kind>`. */
  readonly groupId?: string;
  /** How long stop() waits for the batches in flight. Default 10 s. */
  readonly stopTimeoutMs?: number;
  /** Delivery retries: the first wait and the cap (1 s doubling to 30 s by default). */
  readonly backoff?: BackoffPolicy;
}

export interface RunnerDeps {
  readonly log: MessageLog;
  readonly exporter: Exporter;
  readonly logger?: Logger;
  readonly now?: () => number;
  /** Default: the current schema, single-object framing (or older schemas through avsc). */
  readonly decoder?: FlowRecordDecoder;
}

export interface RunnerStats {
  readonly delivered: number;
  /** Records read from the log and not yet delivered. */
  readonly waiting: number;
  readonly partitions: number;
  readonly retrying: number;
}

/** Ready while running with no partition stuck retrying its batch. */
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
  const decoder = deps.decoder ?? new FlowRecordDecoder();
  const workers = new Map<string, PartitionWorker>();
  let delivered = 0;
  const lifecycle = new Lifecycle(`export runner ${kind}`, EXPORT_STATE, logger);
  let consumer: Consumer | undefined;
  let intents: BatchIntents | undefined;

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
    await stopWorkers([...workers.values()].map((w) => w.tp));
    await consumer?.stop();
    consumer = undefined;
    await intents?.close();
    intents = undefined;
    await exporter.stop();
  }

  async function start(): Promise<void> {
    await log.admin().createTopics([{ topic, partitions: config.topics.flowsProcessedPartitions, cleanupPolicy: 'delete' }]);
    await exporter.start();
    const ranges = (intents = await BatchIntents.open(log, config.topics.exportBatches, groupId, logger, (err) => lifecycle.fail(err)));
    // Consumer batches no larger than a delivery batch keep what waits per partition under 3 × maxRecords.
    consumer = log.consumer({ groupId, isolation: 'read_committed', startFrom: 'earliest', maxBatchRecords: exporter.batching.maxRecords });
    await consumer.subscribe([topic]);
    await consumer.run({
      onAssign: async (partitions) => {
        await ranges.caughtUp();
        for (const tp of partitions) {
          const series = partitionSeries(kind, tp.partition);
          const metrics = {
            ...series,
            delivered: (n: number, seconds: number) => {
              delivered += n;
              series.delivered(n, seconds);
            },
          };
          workers.set(tpKey(tp), new PartitionWorker(tp, { exporter, intents: ranges, control, decoder, metrics, logger: logger.child({ partition: tp.partition }), backoff, now }));
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
        worker.append(batch.records, batch.highWatermark);
      },
      onFailure: (err) => lifecycle.fail(err),
    });
    logger.info({ groupId, topic, batching: exporter.batching }, 'exporter started');
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
      const stuck = [...workers.values()].map((w) => w.state).find((s) => s.kind === 'retrying');
      if (stuck?.kind === 'retrying') return { ready: false, detail: `exporter ${kind}: the destination refuses batch ${stuck.batch} since ${new Date(stuck.since).toISOString()}: ${stuck.error}` };
      return { ready: true };
    }),
  };
}
