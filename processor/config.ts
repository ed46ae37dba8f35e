// Configuration of the processor. Antrea's flow-aggregator.conf keys sit at the top level of the file,
// unchanged, where they mean the same thing (`mode`, `activeFlowRecordTimeout`,
// `inactiveFlowRecordTimeout`, `recordContents.podLabels`); flowagg's own settings live under
// `processor:`. Topic names come from `log.topics` (lib/log/topics.ts), shared with the other services.
import { z } from 'zod';
import { reloadable } from '../lib/config/meta.js';
import { emptyIsDefault } from '../lib/config/empty.js';
import { duration, niceness } from '../lib/config/types.js';
import { topicsSchema } from '../lib/log/topics.js';
// Antrea's `mode` is one key that the processor (what it writes) and the IPFIX exporter (which template) both read.
import { modeSchema } from '../schemas/mode.js';

export const processorSection = z
  .strictObject({
    groupId: z.string().min(1).default('flowagg-processor').describe('Consumer group on flows.raw; also the prefix of the transactional ids (one per input partition).'),
    commitInterval: duration.pipe(z.number().min(1, { error: 'commitInterval must be at least 1ms' })).default(100).describe('A commit (one log transaction: outputs, changelog, input offsets) at least this often while there is work.'),
    commitRecords: z.number().int().positive().default(20_000).describe('A commit also after this many input records of a partition, whichever of the two comes first.'),
    checkpointInterval: duration.default(10_000).describe("Aggregate mode: a commit also writes the flows that changed to processor.state (a checkpoint) when the last checkpoint is this old; a flow is written once however often it changed in between. A restart reads the input since the last checkpoint again (up to this much of it), dropping the outputs already committed. 0 checkpoints at every commit (Kafka Streams' way; about 1.6 times the processor's CPU per record)."),
    checkpointRecords: z.number().int().positive().default(250_000).describe('Aggregate mode: a checkpoint also once this many changelog records (flows changed, flows deleted) wait for one; they are held in memory, packed, until the commit that writes them has sent them, about 400 bytes each.'),
    maxBatchRecords: z.number().int().positive().default(5000).describe('Records per batch handed over by the consumer.'),
    uncorrelated: z.enum(['export', 'drop']).default('export').describe("A half of an inter-Node flow whose peer never came, after the retry budget: `export` it alone (flowagg's default) or `drop` it (Antrea's behaviour). Counted either way."),
    correlationRetries: z.number().int().min(0).max(100).default(2).describe("Active expiries an uncorrelated half waits for its peer before it is given up (Antrea's MaxRetries), in event time and, as Antrea counts them, in receive time."),
    exportDelay: duration.default(1000).describe("A flow that became ready is exported this long (event time) after, as Antrea's 1 s export tick does."),
    allowedLateness: duration.default(30_000).describe("How long a half waiting for its peer (after Antrea's retries) and an inactive flow are kept for records that come late (a source held back, reconnecting with a backlog, a clock behind); also how far behind ingest's receive time a slow source may hold a partition's time. Each flow is held this much longer: memory grows by about the flows that end in this span."),
    sourceIdleTimeout: duration.default(15_000).describe("A source (exporter address and observation domain: an Agent) that sent nothing to a partition for this long (receive time) no longer holds the partition's time back."),
    maxSourcesPerPartition: z.number().int().positive().default(10_000).describe("Sources a partition's clock tracks at once; beyond, the one silent longest is forgotten."),
    maxClockAhead: duration.default(60_000).describe("An export time further than this ahead of when the collector received the record counts as the receive time plus this much: an exporter with a clock far ahead cannot expire a partition's flows early."),
    threads: z.union([z.literal('auto'), z.number().int().min(0).max(256)]).default('auto').describe("Worker threads the processor runs on, each a member of its group with flows.raw's partitions shared among them: `auto` is one per core but one (the main thread keeps the log and ingest), at least one from two cores (measured on two, with the exporters on theirs: 38 % more records taken, 18 % more through, at 7 % more CPU per record), none on one core, at most the partitions; 0 runs it in the main thread."),
    niceness: niceness.describe("How much lower the CPU priority of the processor's threads is than the main thread's, in Linux nice steps, in a process that runs ingest too (`flowagg run`; per thread; other systems keep one priority per process, so there it is not applied): when the cores are short, ingest, which drops what it cannot take in time, goes first, and the processor, which loses nothing by waiting, catches up from the log after the burst. 0 gives them the same priority."),
    maxFlowsPerPartition: z.number().int().positive().default(1_000_000).describe('Flows held per input partition; when full, the flow due soonest is expired early (exported, counted).'),
  })
  .prefault({});

export const recordContentsSection = z
  .strictObject({
    podLabels: z.boolean().default(false).describe("Pod labels of both sides, as JSON with sorted keys, in every output record (Antrea's key)."),
  })
  .prefault({});

/** The keys the processor reads from a flowagg configuration file. */
export const processorConfigShape = {
  mode: modeSchema,
  activeFlowRecordTimeout: emptyIsDefault(duration.default(60_000).describe("Antrea's key: an active aggregated flow is exported at most this often (event time); below 1s rounded up to 1s.")),
  inactiveFlowRecordTimeout: emptyIsDefault(duration.default(90_000).describe("Antrea's key: an aggregated flow is deleted this long (event time) after its last record; below 1s rounded up to 1s.")),
  // As in Antrea, podLabels applies while running (to the records output from then on).
  recordContents: reloadable(recordContentsSection, 'live'),
  processor: reloadable(processorSection, 'restart'),
  log: z.object({ topics: topicsSchema }).prefault({}),
};

export const processorConfig = z.strictObject(processorConfigShape);

export type ProcessorConfig = z.output<typeof processorConfig> & {
  /** The IPFIX exporter's section (its colleague's schema); the processor reads includeK8sUIDs from it. */
  readonly flowCollector?: { readonly includeK8sUIDs?: boolean };
};
export type ProcessorSection = ProcessorConfig['processor'];

/** Antrea rounds timeouts below 1 s up to 1 s, with a warning. */
export const MIN_FLOW_RECORD_TIMEOUT = 1000;

export interface Timeouts {
  readonly activeMs: number;
  readonly inactiveMs: number;
  /** One line per timeout that was rounded up, for the startup log. */
  readonly warnings: readonly string[];
}

export function flowRecordTimeouts(config: Pick<ProcessorConfig, 'activeFlowRecordTimeout' | 'inactiveFlowRecordTimeout'>): Timeouts {
  const warnings: string[] = [];
  const atLeastOne = (key: string, ms: number) => {
    if (ms >= MIN_FLOW_RECORD_TIMEOUT) return ms;
    warnings.push(`${key} ${ms}ms is below 1s: using 1s`);
    return MIN_FLOW_RECORD_TIMEOUT;
  };
  return {
    activeMs: atLeastOne('activeFlowRecordTimeout', config.activeFlowRecordTimeout),
    inactiveMs: atLeastOne('inactiveFlowRecordTimeout', config.inactiveFlowRecordTimeout),
    warnings,
  };
}
