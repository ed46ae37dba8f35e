// The ClickHouse exporter (`clickHouse` section, reference §3, §7.2, §8): each batch of flows.processed
// becomes one RowBinary INSERT into the Antrea/Theia `flows` table. A batch is accepted once the server
// answered the insert; the runner commits after that and retries a failed insert with backoff, so no
// row is dropped (Antrea drops the oldest rows past 524,288 and whatever a stop does not flush in 10 s).
//
// Duplicates: the batch id is the insert's insert_deduplication_token where the server has the setting
// and the table deduplicates (Replicated*, or MergeTree with non_replicated_deduplication_window, which
// the table flowagg creates has); a batch inserted again (a retry after a lost answer, a redelivery after
// a crash) is then a no-op. On servers without it (before 22.x, Debian's 18.16) such a batch is inserted
// twice; the runner counts those records in flowagg_export_redelivered_records_total.
//
// createClickHouseExporter() validates the section (URL, CA file) and connects nothing; start() reaches
// the server, reads what it can do, creates the schema and checks the table's columns.
import { FlowaggError, errorMessage } from '../../lib/errors.js';
import { componentLogger, type Logger } from '../../lib/telemetry/logger.js';
import { componentMetrics } from '../../lib/telemetry/metrics.js';
import { notDelivered } from '../errors.js';
import { type ClusterUuidSource, resolveClusterUuid } from '../row/cluster-uuid.js';
import { CLICKHOUSE_COLUMNS } from '../row/columns.js';
import { toFlowRow } from '../row/flow-row.js';
import { type ExportBatch, type Exporter } from '../types.js';
import { type ClickHouseConfig, type ClickHouseCredentials, credentialsFromEnv } from './config.js';
import { CLICKHOUSE_UNAVAILABLE } from './errors.js';
import { RowBinaryWriter } from './row-binary.js';
import { ClickHouseServer, insertOutcome } from './server.js';

const m = componentMetrics('export_clickhouse');
const metrics = {
  rows: m.counter('rows_total', 'Rows the server accepted'),
  bytes: m.counter('bytes_total', 'RowBinary bytes of the accepted inserts (before compression)'),
  failures: m.counter('insert_failures_total', 'Failed inserts, by whether the server may have taken the rows', ['outcome']),
  deduplication: m.gauge('deduplication', '1 when a batch inserted twice is deduplicated by the server (insert token), 0 when it would be inserted twice'),
};

export interface ClickHouseDeps {
  /** The Antrea cluster UUID of the clusterUUID column (Antrea's ConfigMap, in a cluster); "" when unknown. */
  readonly clusterUuid?: ClusterUuidSource;
  readonly credentials?: ClickHouseCredentials;
  readonly logger?: Logger;
}

export interface ClickHouseExporter extends Exporter {
  /** Known after start(): whether a batch inserted twice is deduplicated. */
  readonly deduplicates: boolean;
}

export function createClickHouseExporter(config: ClickHouseConfig, deps: ClickHouseDeps = {}): ClickHouseExporter {
  const logger = deps.logger ?? componentLogger('export-clickhouse');
  let clusterUuid = '';
  const server = new ClickHouseServer(config, deps.credentials ?? credentialsFromEnv(), logger);
  let deduplicates = false;

  return {
    kind: 'clickhouse',
    batching: { maxRecords: config.maxBatchRows, maxDelayMs: config.commitInterval },
    get deduplicates() {
      return deduplicates;
    },
    async start() {
      clusterUuid = await resolveClusterUuid(deps.clusterUuid);
      const version = await server.connect();
      const caps = await server.capabilities(version);
      ({ deduplicates } = await server.ensureSchema(caps));
      metrics.deduplication.set(deduplicates ? 1 : 0);
      logger.info(
        {
          url: server.endpoint.url,
          ...(server.endpoint.mappedFrom && { databaseURL: server.endpoint.mappedFrom }),
          database: config.database,
          version,
          ttl: caps.ttl && config.tableTTL > 0,
          deduplicates,
        },
        deduplicates ? 'ClickHouse ready; retried batches are deduplicated' : 'ClickHouse ready; this server or table cannot deduplicate a batch inserted twice (counted as redelivered)',
      );
    },
    async deliver(batch: ExportBatch, signal: AbortSignal) {
      const writer = new RowBinaryWriter(CLICKHOUSE_COLUMNS, Math.max(4096, batch.records.length * 512));
      for (const { record } of batch.records) writer.write(toFlowRow(record, clusterUuid));
      const rows = writer.take();
      try {
        await server.insert(rows, deduplicates ? batch.id : undefined, signal);
      } catch (err) {
        const outcome = insertOutcome(err);
        metrics.failures.inc({ outcome });
        const failure = new FlowaggError(CLICKHOUSE_UNAVAILABLE, `insert of batch ${batch.id} (${batch.records.length} rows) into ${server.endpoint.url} failed: ${errorMessage(err)}`, {
          context: { batch: batch.id, url: server.endpoint.url },
          cause: err,
          retriable: true,
        });
        throw outcome === 'not-inserted' ? notDelivered(failure) : failure;
      }
      metrics.rows.inc(batch.records.length);
      metrics.bytes.inc(rows.length);
    },
    async stop() {
      await server.close();
    },
  };
}
