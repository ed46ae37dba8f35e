// The names and partition counts of the topics flowagg's services share (DESIGN.md "Message log"). One
// section (`log.topics`) for every service, so that ingest, the processor and the exporters of one
// deployment cannot disagree about where records are.
import { z } from 'zod';

const topicName = z.string().min(1);

export const topicsSchema = z
  .strictObject({
    flowsRaw: topicName.default('flows.raw').describe('Decoded records, written by ingest, read by the processor.'),
    flowsRawPartitions: z.number().int().positive().default(4).describe('Partitions of flows.raw. The processor\'s unit of parallelism, and the partition count of processor.state, whose partition i holds the state of flows.raw partition i.'),
    flowsProcessed: topicName.default('flows.processed').describe('Aggregated or proxied records, written by the processor, read by every exporter.'),
    flowsProcessedPartitions: z.number().int().positive().default(4).describe('Partitions of flows.processed: the exporters\' unit of parallelism.'),
    processorState: topicName.default('processor.state').describe('The processor\'s changelog (compacted).'),
    templates: topicName.default('ipfix.templates').describe('UDP templates shared by ingest replicas (compacted).'),
    exportBatches: topicName.default('exporter.batches').describe('The range of the batch each exporter group is delivering, per partition (compacted; docs/exporters.md).'),
  })
  .prefault({});

export type TopicsConfig = z.output<typeof topicsSchema>;
