// The processor service: consumes flows.raw in a consumer group and writes flows.processed, one task
// per assigned input partition (task.ts), in aggregate or proxy mode.
//
// Assignment of a partition (start, restart, rebalance), in this order:
//   1. its transactional producer (id <group>-<topic>-<partition>) begins a transaction, which fences
//      any older producer with that id: a zombie instance can commit nothing from then on;
//   2. aggregate mode: its state is restored from its processor.state partition, read to the end;
//   3. its committed input offset is read and the consumer moved there (without one, to where the group
//      starts). Everything committed before the fence is in both the changelog and the offset, nothing
//      after it can be, so state and position agree.
// Revocation (rebalance, stop): the task commits what it applied and closes. A failed commit rebuilds
// the partition the same way as an assignment. partition-tasks.ts keeps the tasks equal to the assignment
// whatever order these come in.
//
// createProcessor() is inert; start() creates the topics and joins the group; stop() leaves it.
import { FlowaggError } from '../lib/errors.js';
import type { Batch, Consumer, MessageLog, Reader, TopicPartition } from '../lib/log/types.js';
import type { MetadataSource } from '../lib/k8s/metadata.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { Lifecycle, type Readiness } from '../lib/service/lifecycle.js';
import type { Service } from '../lib/service/service.js';
import { componentLogger, type Logger } from '../lib/telemetry/logger.js';
import type { AvroFraming } from '../schemas/avro.js';
import { clockTickTime } from '../schemas/clock-tick.js';
import { FlowRecordScanner } from '../schemas/flow-record-scanner.js';
import type { AggregatorCounters, AggregatorSettings } from './aggregate/aggregator.js';
import { flowRecordTimeouts, type ProcessorConfig } from './config.js';
import { PROCESSOR_FINAL_COMMIT, PROCESSOR_STATE } from './errors.js';
import type { MetadataOptions } from './metadata-fill.js';
import { processorMetrics as metrics } from './metrics.js';
import { restoreAggregation } from './restore.js';
import { PartitionTasks } from './partition-tasks.js';
import { PartitionTask, type TaskSettings } from './task.js';
import { AggregateWork, type PartitionWork, ProxyWork, type WorkDeps } from './work.js';

/** processor.state segments roll at this size, so that compaction keeps the changelog near the live state. */
const CHANGELOG_SEGMENT_BYTES = 64 * 2 ** 20;
/** kafkajs's heartbeat interval: by then a consumer whose partition moved in a rebalance has been told. */
const FENCED_REOPEN_DELAY_MS = 3000;

export interface ProcessorDeps {
  readonly log: MessageLog;
  /** Kubernetes metadata (informers or an inventory file); without it nothing is looked up. */
  readonly metadata?: MetadataSource;
  readonly logger?: Logger;
  /** The wall time of commits and lag metrics, and the periodic tick; the system's by default. */
  readonly clock?: Clock;
  /** Framing of the records written (default single-object). */
  readonly framing?: AvroFraming;
  /** Framing ingest writes flows.raw with (log.valueFormat): a Confluent id is read as the current schema. */
  readonly inputFraming?: AvroFraming;
}

export interface ProcessorStats {
  readonly mode: 'aggregate' | 'proxy';
  readonly partitions: number;
  readonly flows: number;
  readonly records: number;
  readonly outputs: number;
  readonly badRecords: number;
  readonly uncorrelatedDropped: number;
}

/** stop() commits what was processed and leaves the group. */
export interface Processor extends Service {
  /**
   * End of input (`flowagg pipeline`, with nothing left to consume): every flow of every assigned
   * partition exported now and committed, as if time had moved past every deadline.
   */
  finish(): Promise<void>;
  stats(): ProcessorStats;
  /** The aggregation state of the assigned partitions, for /flowrecords (empty in proxy mode). */
  tasks(): readonly PartitionTask[];
  /** recordContents.podLabels changed while running (Antrea applies it live): labels in the records output from now on. */
  setPodLabels(on: boolean): void;
}

type Totals = AggregatorCounters & { badRecords: number; passedThrough: number };
const zeroTotals = (): Totals => ({ records: 0, stale: 0, late: 0, missingTimes: 0, created: 0, correlated: 0, exported: 0, uncorrelatedExported: 0, uncorrelatedDropped: 0, evicted: 0, deleted: 0, badRecords: 0, passedThrough: 0 });

export function createProcessor(config: ProcessorConfig, deps: ProcessorDeps): Processor {
  const logger = deps.logger ?? componentLogger('processor');
  const clock = deps.clock ?? systemClock;
  const now = () => clock.now();
  const section = config.processor;
  const topics = config.log.topics;
  const mode = config.mode === 'Proxy' ? 'proxy' : 'aggregate';
  const timeouts = flowRecordTimeouts(config);
  const aggregation: AggregatorSettings = {
    activeMs: timeouts.activeMs, inactiveMs: timeouts.inactiveMs, exportDelayMs: section.exportDelay,
    correlationRetries: section.correlationRetries, uncorrelated: section.uncorrelated, maxFlows: section.maxFlowsPerPartition,
    allowedLatenessMs: section.allowedLateness,
    clock: { idleMs: section.sourceIdleTimeout, maxAheadMs: section.maxClockAhead, maxSources: section.maxSourcesPerPartition },
  };
  const metadataOptions: MetadataOptions = {
    metadata: deps.metadata, podLabels: config.recordContents.podLabels, includeK8sUIDs: config.flowCollector?.includeK8sUIDs ?? false,
  };
  /** Input records processed and output records committed, over every task this instance ran. */
  const io = { records: 0, outputs: 0 };
  const taskSettings: TaskSettings = {
    groupId: section.groupId, inputTopic: topics.flowsRaw, outputTopic: topics.flowsProcessed, changelogTopic: topics.processorState,
    commitRecords: section.commitRecords, commitIntervalMs: section.commitInterval, checkpointIntervalMs: section.checkpointInterval, checkpointRecords: section.checkpointRecords, now,
    onCommitted: (outputs) => void (io.outputs += outputs),
  };
  const workDeps: WorkDeps = { scanner: new FlowRecordScanner(deps.inputFraming?.kind === 'confluent' ? deps.inputFraming.schemaId : undefined), metadata: metadataOptions, framing: deps.framing ?? { kind: 'single-object' }, logger, budget: section.commitRecords };
  /** Counters of tasks already gone, plus what live tasks reported last. */
  const totals = zeroTotals();
  const reported = new WeakMap<PartitionWork, Totals>();
  const lifecycle = new Lifecycle('processor', PROCESSOR_STATE, logger);
  let consumer: Consumer | undefined;
  let reader: Reader | undefined;
  let stopTicking = () => {};
  const assignedPartitions = () => consumer?.assignment().filter((tp) => tp.topic === topics.flowsRaw).map((tp) => tp.partition) ?? [];
  const tasks = new PartitionTasks({ open: openTask, assigned: assignedPartitions, closed: (task) => report(task.work), logger });

  /** Adds what a task's work counted since its last report to the totals and the metrics. */
  function report(work: PartitionWork): void {
    const last = reported.get(work) ?? zeroTotals();
    const current: Totals = { ...(work.aggregator?.counters ?? zeroTotals()), badRecords: work.badRecords, passedThrough: work.passedThrough };
    const delta = (k: keyof Totals) => current[k] - last[k];
    for (const k of Object.keys(totals) as (keyof Totals)[]) totals[k] += delta(k);
    metrics.badRecords.labels('not_a_flow_record').inc(delta('badRecords'));
    metrics.badRecords.labels('no_flow_times').inc(delta('missingTimes'));
    metrics.stale.inc(delta('stale'));
    metrics.late.inc(delta('late'));
    metrics.correlated.inc(delta('correlated'));
    metrics.uncorrelated.labels('exported').inc(delta('uncorrelatedExported'));
    metrics.uncorrelated.labels('dropped').inc(delta('uncorrelatedDropped'));
    metrics.evicted.inc(delta('evicted'));
    metrics.passedThrough.inc(delta('passedThrough'));
    reported.set(work, current);
  }

  function newWork(): PartitionWork {
    return mode === 'aggregate' ? new AggregateWork(aggregation, workDeps) : new ProxyWork(workDeps);
  }

  async function committedOffset(partition: number): Promise<number | null> {
    const lag = await deps.log.admin().fetchGroupLag(section.groupId);
    return lag.find((l) => l.topic === topics.flowsRaw && l.partition === partition)?.committed ?? null;
  }

  /** Where the group starts a partition it never committed on (the consumer's startFrom 'earliest'). */
  async function earliestOffset(partition: number): Promise<number> {
    const offsets = await deps.log.admin().fetchTopicOffsets(topics.flowsRaw);
    return offsets.find((o) => o.partition === partition)!.low;
  }

  /** Fence, restore, position: a task for an assigned partition (see the file comment). */
  async function openTask(partition: number): Promise<PartitionTask> {
    const producer = deps.log.transactionalProducer(`${section.groupId}-${topics.flowsRaw}-${partition}`);
    try {
      const first = await producer.begin();
      const work = newWork();
      const committed = await committedOffset(partition);
      // Without a committed offset the consumer is not necessarily where the group starts: a task rebuilt
      // after its first commit failed finds it past the batches the failed task took. So the consumer is
      // moved in every case, to the earliest offset still in the log when nothing was committed.
      const start = committed ?? (await earliestOffset(partition));
      let from = start;
      if (work.aggregator !== undefined) {
        const timer = metrics.restoreSeconds.startTimer();
        const restored = await restoreAggregation(reader!, topics.processorState, partition, work.aggregator, logger, now);
        timer();
        metrics.restoredRecords.inc(restored.records);
        logger.info({ partition, ...restored }, 'partition state restored');
        // The state goes with the input offset committed with it; starting elsewhere means the group's
        // offsets were moved since (flowagg offsets reset) or expired (then the start is the earliest
        // offset, past 0 after retention): what is replayed starts from an empty state.
        if (restored.inputOffset !== null && restored.inputOffset !== start) {
          logger.warn({ partition, stateOffset: restored.inputOffset, committed, start }, 'the committed input offset is not the one of the saved state (offsets were reset): starting the partition from an empty state');
          work.aggregator.discard();
        } else if (restored.checkpointOffset !== null && restored.checkpointOffset < start) {
          // The state is its last checkpoint's: the input after it is read again, its outputs dropped up to those committed.
          if (restored.checkpointOffset < (await earliestOffset(partition))) {
            logger.warn({ partition, checkpointOffset: restored.checkpointOffset, start }, "the input since the state's checkpoint is no longer in the log (retention): starting the partition from an empty state");
            work.aggregator.discard();
          } else {
            from = restored.checkpointOffset;
            metrics.replayedOffsets.inc(start - from);
            logger.info({ partition, from, to: start }, "reading the input since the state's checkpoint again");
          }
        }
      }
      consumer!.seek({ topic: topics.flowsRaw, partition, offset: from });
      return new PartitionTask(partition, work, producer, first, from, start, taskSettings, logger);
    } catch (err) {
      await producer.close().catch(() => undefined);
      throw err;
    }
  }

  async function assign(partitions: readonly TopicPartition[]): Promise<void> {
    for (const tp of partitions) if (tp.topic === topics.flowsRaw) await tasks.assign(tp.partition);
    metrics.partitions.set(tasks.size);
    logger.info({ partitions: tasks.partitions(), assigned: assignedPartitions() }, 'partitions assigned');
  }

  async function revoke(partitions: readonly TopicPartition[]): Promise<void> {
    await Promise.all(partitions.filter((tp) => tp.topic === topics.flowsRaw).map((tp) => tasks.revoke(tp.partition)));
    metrics.partitions.set(tasks.size);
    logger.info({ revoked: partitions.map((tp) => tp.partition), partitions: tasks.partitions(), assigned: assignedPartitions() }, 'partitions revoked');
  }

  async function eachBatch(batch: Batch): Promise<void> {
    const task = tasks.get(batch.partition);
    if (task === undefined) {
      // A batch of a partition assigned to us with no task: being opened, or fenced and then left to a
      // rebalance that kept the partition here (so no assignment opens it again): open it, after the
      // time the consumer takes to learn of a rebalance, so that a partition moving away is not taken back.
      tasks.reopen(batch.partition, FENCED_REOPEN_DELAY_MS);
      throw new FlowaggError(PROCESSOR_STATE, `a batch of ${batch.topic}-${batch.partition}, which has no task yet (being opened or rebuilt)`);
    }
    try {
      await task.processBatch(batch.records);
    } catch (err) {
      // The consumer delivers the batch again; the rebuilt task moves the consumer to the committed offset.
      if (task.failed) void tasks.rebuild(task);
      throw err;
    } finally {
      report(task.work);
    }
    // Ingest's clock ticks are no input records of their own.
    let inputs = 0;
    for (const r of batch.records) if (clockTickTime(r) === undefined) inputs++;
    io.records += inputs;
    metrics.records.labels(mode).inc(inputs);
  }

  function tick(): void {
    tasks.reconcile();
    let flows = 0;
    for (const task of tasks.values()) {
      flows += task.work.flows;
      const partitionClock = task.work.aggregator?.clock;
      if (partitionClock !== undefined && partitionClock.now > 0) {
        const partition = String(task.partition);
        metrics.watermarkLag.labels(partition).set((now() - partitionClock.now) / 1000);
        metrics.clockLag.labels(partition).set((partitionClock.received - partitionClock.now) / 1000);
        metrics.clockSources.labels(partition).set(partitionClock.sourceCount);
      }
      void task.tick().then(() => (task.failed ? tasks.rebuild(task) : undefined)).catch((err: unknown) => logger.error({ partition: task.partition, err }, 'processor tick failed'));
    }
    metrics.flows.set(flows);
    metrics.partitions.set(tasks.size);
  }

  async function ensureTopics(): Promise<void> {
    const admin = deps.log.admin();
    await admin.createTopics([
      { topic: topics.flowsRaw, partitions: topics.flowsRawPartitions, cleanupPolicy: 'delete' },
      { topic: topics.flowsProcessed, partitions: topics.flowsProcessedPartitions, cleanupPolicy: 'delete' },
      { topic: topics.processorState, partitions: topics.flowsRawPartitions, cleanupPolicy: 'compact', segmentBytes: CHANGELOG_SEGMENT_BYTES },
    ]);
    const described = await admin.listTopics();
    const input = described.find((t) => t.topic === topics.flowsRaw);
    const changelog = described.find((t) => t.topic === topics.processorState);
    if (input !== undefined && changelog !== undefined && input.partitions !== changelog.partitions) {
      throw new FlowaggError(PROCESSOR_STATE, `${topics.processorState} has ${changelog.partitions} partitions and ${topics.flowsRaw} ${input.partitions}: partition i of the changelog holds the state of input partition i, so they must have as many (recreate ${topics.processorState}, or set log.topics.flowsRawPartitions to ${input.partitions})`, {
        context: { changelog: changelog.partitions, input: input.partitions },
      });
    }
  }

  async function start(): Promise<void> {
    tasks.reset();
    for (const warning of timeouts.warnings) logger.warn(warning);
    await ensureTopics();
    reader = deps.log.reader();
    consumer = deps.log.consumer({ groupId: section.groupId, isolation: 'read_committed', startFrom: 'earliest', maxBatchRecords: section.maxBatchRecords, valuesInPlace: true });
    await consumer.subscribe([topics.flowsRaw]);
    // run() assigns partitions as it joins the group, before the lifecycle is running: open() retries in starting too.
    await consumer.run({ eachBatch, onAssign: assign, onRevoke: revoke, onFailure: (err) => lifecycle.fail(err) });
    stopTicking = clock.every(Math.max(10, Math.min(section.commitInterval, 1000) / 2), tick);
    logger.info({ mode, groupId: section.groupId, input: topics.flowsRaw, output: topics.flowsProcessed, changelog: mode === 'aggregate' ? topics.processorState : undefined }, 'processor started');
  }

  /** After a failed start: whatever the consumer's stop does, the reader is closed. */
  async function release(): Promise<void> {
    stopTicking();
    await tasks.abort();
    await consumer?.stop().finally(() => reader?.close());
  }

  /** Leaves the group (revoking commits each partition), then commits and closes what is left; a failed final commit is thrown. */
  async function stop(): Promise<void> {
    stopTicking();
    tasks.unfinished.clear();
    await tasks.abort();
    // Leaving the group revokes (and so closes) the tasks; a consumer that failed may not, nor stop cleanly.
    const consumerStop = await consumer?.stop().then(() => undefined, (err: unknown) => err);
    await tasks.closeAll();
    await reader?.close();
    logger.info(totals, 'processor stopped');
    if (consumerStop !== undefined) throw consumerStop;
    const failed = [...tasks.unfinished].sort((a, b) => a - b);
    if (failed.length > 0) throw new FlowaggError(PROCESSOR_FINAL_COMMIT, `the final commit of partitions ${failed.join(', ')} of ${topics.flowsRaw} failed`, { context: { partitions: failed.join(',') } });
  }

  return {
    name: 'processor',
    get state() {
      return lifecycle.state;
    },
    start: () => lifecycle.start(start, release),
    stop: () => lifecycle.stop(stop),
    onFailure: (listener) => lifecycle.onFailure(listener),
    async finish() {
      lifecycle.guard('finish', ['running']);
      await Promise.all([...tasks.values()].map((t) => t.finish()));
    },
    stats() {
      let flows = 0;
      for (const task of tasks.values()) flows += task.work.flows;
      return { mode, partitions: tasks.size, flows, records: io.records, outputs: io.outputs, badRecords: totals.badRecords + totals.missingTimes, uncorrelatedDropped: totals.uncorrelatedDropped };
    },
    readiness: (): Readiness => lifecycle.readiness(),
    tasks: () => [...tasks.values()],
    setPodLabels: (on) => {
      metadataOptions.podLabels = on;
    },
  };
}
