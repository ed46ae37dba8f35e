// The names and partition counts of the topics flowagg's services share (DESIGN.md "Message log"). One
// section (`log.topics`) for every service, so that ingest, the processor and the exporters of one
// deployment cannot disagree about where records are.
import { z } from 'zod';

const topicName = z.string().min(1);

export const topicsSchema = z
  .strictObject({
    /** Decoded records, written by ingest, read by the processor. */
    flowsRaw: topicName.default('flows.raw'),
    /**
     * Partitions of flows.raw. The processor's unit of parallelism, and the partition count of
     * processor.state, whose partition i holds the state of flows.raw partition i.
     */
    flowsRawPartitions: z.number().int().positive().default(4),
    /** Aggregated or proxied records, written by the processor, read by every exporter. */
    flowsProcessed: topicName.default('flows.processed'),
    flowsProcessedPartitions: z.number().int().positive().default(4),
    /** The processor's changelog (compacted). */
    processorState: topicName.default('processor.state'),
    /** UDP templates shared by ingest replicas (compacted). */
    templates: topicName.default('ipfix.templates'),
    /** The range of the batch each exporter group is delivering, per partition (compacted; docs/exporters.md). */
    exportBatches: topicName.default('exporter.batches'),
  })
  .prefault({});

export type TopicsConfig = z.output<typeof topicsSchema>;
