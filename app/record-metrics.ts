// /recordmetrics: Antrea's RecordMetricsResponse (the keys antctl get recordmetrics decodes:
// numRecordsExported, numRecordsReceived, numFlows, numConnToCollector, with*Exporter) for the services
// this process runs, and flowagg's own figures beside them. Every count is read from the Prometheus
// counter /metrics shows, so the two never disagree; numFlows and numConnToCollector are states, read
// from the services.
//
// numRecordsExported counts each record once, as Antrea counts a record once when it hands it to its
// exporters (however many there are): with the processor here, the records it wrote to flows.processed;
// in a process that only exports, the records of the exporter that delivered the most.
import type { Counter } from 'prom-client';
import { counterTotal } from '../lib/telemetry/metrics.js';
import type { IngestService } from '../ingest/thread/threaded-ingest.js';
import { ingestMetrics } from '../ingest/metrics.js';
import type { RunningProcessors } from './processors.js';
import { processorMetrics } from '../processor/metrics.js';
import { exportMetrics } from '../exporters/metrics.js';
import type { ExportRunner } from '../exporters/runner.js';

export interface RecordMetricsSources {
  readonly ingest: IngestService | undefined;
  readonly processors: RunningProcessors | undefined;
  readonly runners: readonly Pick<ExportRunner, 'kind'>[];
}

export async function recordMetrics({ ingest, processors: processor, runners }: RecordMetricsSources) {
  const kinds = new Set(runners.map((r) => r.kind));
  const delivered = await Promise.all(runners.map((r) => counterTotal(exportMetrics.records, { exporter: r.kind })));
  const processed = processor === undefined ? undefined : await counterTotal(processorMetrics.records);
  const s = await ingest?.stats();
  const ingestCount = <L extends string>(c: Counter<L>) => (ingest === undefined ? Promise.resolve(0) : counterTotal(c));
  const dropped =
    (await ingestCount(ingestMetrics.droppedRecords)) +
    (processor === undefined ? 0 : (await counterTotal(processorMetrics.badRecords)) + (await counterTotal(processorMetrics.uncorrelated, { action: 'dropped' })));
  return {
    numRecordsExported: processor !== undefined ? await counterTotal(processorMetrics.outputs) : Math.max(0, ...delivered),
    numRecordsReceived: ingest !== undefined ? await counterTotal(ingestMetrics.records) : (processed ?? 0),
    numFlows: (await processor?.flows()) ?? 0,
    numConnToCollector: s === undefined ? 0 : s.streamSessions + s.udpExporters,
    numRecordsWritten: await ingestCount(ingestMetrics.written),
    numRecordsDropped: dropped,
    numRecordsLostInTransit: await ingestCount(ingestMetrics.sequenceLost),
    numSetsSkipped: await ingestCount(ingestMetrics.skippedSets),
    numBytesSkipped: await ingestCount(ingestMetrics.skippedBytes),
    ...(processed !== undefined && { numRecordsProcessed: processed }),
    withClickHouseExporter: kinds.has('clickhouse'),
    withS3Exporter: kinds.has('s3'),
    withLogExporter: kinds.has('flowlog'),
    withIPFIXExporter: kinds.has('ipfix'),
  };
}
