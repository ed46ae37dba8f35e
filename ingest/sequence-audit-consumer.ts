// Runs the sequence audit (sequence-audit.ts) on flows.raw: a consumer of its own group that reads every
// partition from the end (it never commits: it audits from its start on), reads each record's provenance only,
// and judges once a second. The audit is meaningful only where it reads every partition, so it runs in one
// place (ingest.sequenceAudit.enabled on one deployment); when the log gives it fewer partitions than the topic
// has (another audit joined the group), it judges nothing and says so (sequence_audit_partitions_missing).
import { type Clock, systemClock } from '../lib/clock.js';
import { errorMessage } from '../lib/errors.js';
import type { Consumer, MessageLog } from '../lib/log/types.js';
import { CappedLabel } from '../lib/telemetry/capped-label.js';
import type { Logger } from '../lib/telemetry/logger.js';
import { ingestMetrics as metrics } from './metrics.js';
import { readProvenance, transportIndex } from './records/provenance.js';

/** NetFlow v9 numbers packets, template-only ones included, which flows.raw cannot show: not audited. */
const NETFLOW_V9 = transportIndex('netflow_v9');
import { type AuditFinding, SequenceAudit } from './sequence-audit.js';

export const SEQUENCE_AUDIT_GROUP = 'flowagg-sequence-audit';
const JUDGE_EVERY_MS = 1000;

export interface SequenceAuditOptions {
  readonly log: MessageLog;
  readonly topic: string;
  readonly logger: Logger;
  readonly settleMs: number;
  readonly maxExporters: number;
  /** Reads the time and runs the judgements (once a second); the system's by default. */
  readonly clock?: Clock;
  /** Where a new audit starts reading: the end (default), or, on a log it has all of, the beginning. */
  readonly startFrom?: 'earliest' | 'latest';
  /** Every finding, for tests. */
  readonly onFindings?: (findings: readonly AuditFinding[]) => void;
  /** The consumer stopped for good (ConsumerHandlers.onFailure). */
  readonly onFailure?: (err: unknown) => void;
}

export interface RunningAudit {
  stop(): Promise<void>;
}

export async function startSequenceAudit(opts: SequenceAuditOptions): Promise<RunningAudit> {
  const clock = opts.clock ?? systemClock;
  const now = () => clock.now();
  const audit = new SequenceAudit({ settleMs: opts.settleMs });
  const labels = new CappedLabel(opts.maxExporters);
  /** Per partition: the latest receive time read, and whether it was read to its end. */
  const partitions = new Map<number, { latest: number; caughtUp: boolean }>();
  const started = now();
  const consumer: Consumer = opts.log.consumer({ groupId: SEQUENCE_AUDIT_GROUP, startFrom: opts.startFrom ?? 'latest', isolation: 'read_uncommitted' });
  await consumer.subscribe([opts.topic]);
  const report = (findings: readonly AuditFinding[]) => {
    for (const f of findings) {
      const exporter = labels.of(f.exporter);
      if (f.lost > 0) metrics.auditLost.inc({ exporter }, f.lost);
      if (f.late > 0) metrics.auditLate.inc({ exporter }, f.late);
      if (f.resets > 0) metrics.auditResets.inc({ exporter }, f.resets);
    }
    if (findings.length > 0) opts.onFindings?.(findings);
  };
  await consumer.run({
    ...(opts.onFailure && { onFailure: opts.onFailure }),
    eachBatch: async (batch) => {
      let latest = partitions.get(batch.partition)?.latest ?? 0;
      for (const r of batch.records) {
        const p = r.value === null ? undefined : readProvenance(r.value);
        if (p === undefined) continue;
        latest = Math.max(latest, p.receiveTime);
        if (p.transport === NETFLOW_V9) continue;
        report(audit.add(p.exporterAddress, `${p.exporterAddress}|${p.exporterPort}|${p.transport}`, p.observationDomainId, p.sequenceNumber, p.receiveTime));
      }
      partitions.set(batch.partition, { latest, caughtUp: batch.records.at(-1)!.offset + 1 >= batch.highWatermark });
    },
  });
  let judging = false;
  const judge = async () => {
    if (judging) return;
    judging = true;
    try {
      const total = (await opts.log.admin().fetchTopicOffsets(opts.topic)).length;
      const assigned = consumer.assignment().filter((tp) => tp.topic === opts.topic).map((tp) => tp.partition);
      metrics.auditPartitionsMissing.set(total - assigned.length);
      if (assigned.length < total) return;
      // A partition read to its end, or not heard from since the start, holds nothing older back.
      const t = now();
      let watermark = t;
      for (const p of assigned) {
        const state = partitions.get(p);
        if (state !== undefined && !state.caughtUp) watermark = Math.min(watermark, state.latest);
        else if (state === undefined && t - started < opts.settleMs) watermark = Math.min(watermark, started);
      }
      report(audit.settle(watermark));
      metrics.auditStreams.set(audit.streams);
    } catch (err) {
      opts.logger.warn({ err: errorMessage(err) }, 'sequence audit: cannot judge now');
    } finally {
      judging = false;
    }
  };
  const stopJudging = clock.every(JUDGE_EVERY_MS, () => void judge());
  return {
    stop: async () => {
      stopJudging();
      await consumer.stop();
    },
  };
}
