// The flow explorer's service: a consumer of flows.processed in its own group (explorer.groupId) that
// folds every record into the rollups (rollups.ts). The rollups live in memory only, so they are derived
// from the log like every other view: at start each partition is read again from the first record of the
// horizon (offsets by timestamp), and a partition assigned again later resumes where it was folded up to,
// so nothing is counted twice. The committed offsets only show the explorer's lag (`flowagg offsets list`).
//
// createExplorer() is inert; start() joins the group; stop() leaves it.
import { errorMessage } from '../../lib/errors.js';
import { Lifecycle } from '../../lib/service/lifecycle.js';
import type { Service } from '../../lib/service/service.js';
import type { TopicsConfig } from '../../lib/log/topics.js';
import type { Consumer, MessageLog, TopicPartition } from '../../lib/log/types.js';
import { componentLogger, type Logger, sampledLogger } from '../../lib/telemetry/logger.js';
import type { FlowRecordDecoder } from '../../schemas/flow-record-decoder.js';
import type { StatusResponse } from './api-types.js';
import type { ExplorerConfig } from './config.js';
import { EXPLORER_STATE } from './errors.js';
import { flowFacts } from './flow-facts.js';
import { explorerMetrics } from './metrics.js';
import { defaultTiers, Rollups } from './rollups.js';

/** How often the folded offsets are committed and old buckets dropped. */
const HOUSEKEEPING_MS = 5000;
/** Records are logged a little after their flow ends: the rebuild starts this much before the horizon. */
const LOG_DELAY_MS = 60_000;

export interface ExplorerDeps {
  readonly log: MessageLog;
  readonly topics: TopicsConfig;
  readonly decoder: FlowRecordDecoder;
  readonly logger?: Logger;
  readonly now?: () => number;
}

export interface Explorer extends Service {
  readonly rollups: Rollups;
  status(): StatusResponse;
}

interface Progress {
  /** Where the rebuild started and the log end then: the records to fold before the view is whole. */
  readonly from: number;
  readonly to: number;
  /** The offset after the last record folded. */
  at: number;
}

export function createExplorer(config: ExplorerConfig, deps: ExplorerDeps): Explorer {
  const logger = deps.logger ?? componentLogger('explorer');
  const warn = sampledLogger(logger);
  const now = deps.now ?? Date.now;
  const topic = deps.topics.flowsProcessed;
  const rollups = new Rollups({ tiers: defaultTiers(config.horizon), maxMemoryBytes: config.maxMemory });
  const lifecycle = new Lifecycle('explorer', EXPLORER_STATE, logger);
  /** Per partition ever assigned: what is folded. Kept across revocations, so a partition assigned again resumes. */
  const progress = new Map<number, Progress>();
  let records = 0;
  let outsideCounted = 0;
  let consumer: Consumer | undefined;
  let timer: NodeJS.Timeout | undefined;

  async function assign(partitions: readonly TopicPartition[]): Promise<void> {
    const admin = deps.log.admin();
    const starts = new Map((await admin.fetchOffsetsByTimestamp(topic, now() - config.horizon - LOG_DELAY_MS)).map((o) => [o.partition, o.offset]));
    const ends = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, o.high]));
    for (const tp of partitions) {
      const known = progress.get(tp.partition);
      const from = known?.at ?? starts.get(tp.partition) ?? 0;
      if (known === undefined) progress.set(tp.partition, { from, to: ends.get(tp.partition) ?? from, at: from });
      consumer!.seek({ ...tp, offset: from });
    }
    logger.info({ partitions: partitions.map((p) => p.partition) }, 'partitions assigned: folding from the horizon on');
  }

  function housekeeping(): void {
    rollups.evict(now());
    explorerMetrics.memory.set(rollups.memoryBytes());
    explorerMetrics.outside.inc(rollups.outside - outsideCounted);
    outsideCounted = rollups.outside;
    const offsets = [...progress].filter(([partition]) => consumer?.assignment().some((tp) => tp.partition === partition)).map(([partition, p]) => ({ topic, partition, offset: p.at }));
    if (offsets.length > 0) consumer?.commit(offsets).catch((err: unknown) => warn('explorer-commit', { err: errorMessage(err) }, 'committing the folded offsets failed; retried at the next round'));
  }

  async function start(): Promise<void> {
    await deps.log.admin().createTopics([{ topic, partitions: deps.topics.flowsProcessedPartitions, cleanupPolicy: 'delete' }]);
    consumer = deps.log.consumer({ groupId: config.groupId, isolation: 'read_committed', startFrom: 'earliest', maxBatchRecords: 5000 });
    await consumer.subscribe([topic]);
    await consumer.run({
      onAssign: assign,
      eachBatch: async (batch) => {
        const t = now();
        for (const r of batch.records) {
          if (r.value === null) continue;
          try {
            rollups.add(flowFacts(deps.decoder.decode(r.value), r.timestamp), t);
          } catch (err) {
            explorerMetrics.unreadable.inc();
            warn('explorer-unreadable', { partition: r.partition, offset: r.offset, err: errorMessage(err) }, 'skipped an unreadable record of flows.processed');
          }
        }
        records += batch.records.length;
        explorerMetrics.records.inc(batch.records.length);
        const p = progress.get(batch.partition);
        if (p !== undefined) p.at = batch.records[batch.records.length - 1]!.offset + 1;
      },
      onFailure: (err) => lifecycle.fail(err),
    });
    timer = setInterval(housekeeping, HOUSEKEEPING_MS);
    timer.unref();
    logger.info({ groupId: config.groupId, topic, horizon: config.horizon, maxMemory: config.maxMemory }, 'explorer started');
  }

  async function stop(): Promise<void> {
    clearInterval(timer);
    await consumer?.stop();
    consumer = undefined;
  }

  return {
    name: 'explorer',
    rollups,
    get state() {
      return lifecycle.state;
    },
    start: () => lifecycle.start(start, stop),
    stop: () => lifecycle.stop(stop),
    onFailure: (listener) => lifecycle.onFailure(listener),
    readiness: () => lifecycle.readiness(),
    status(): StatusResponse {
      let done = 0;
      let total = 0;
      for (const p of progress.values()) {
        total += p.to - p.from;
        done += Math.min(p.at, p.to) - p.from;
      }
      return {
        horizonMs: config.horizon,
        memory: { usedBytes: rollups.memoryBytes(), ceilingBytes: config.maxMemory },
        records,
        outside: rollups.outside,
        rebuilding: done < total ? { done, total } : undefined,
        tiers: rollups.tiers.map((tier) => ({ ...tier.spec, buckets: tier.size })),
      };
    },
  };
}
