// The ClickHouse exporter (`clickHouse` section, reference §3, §7.2, §8): each batch of flows.processed
// becomes one RowBinary INSERT into the Antrea/Theia `flows` table. A batch is accepted once the server
// answered the insert; the runner commits after that and retries a failed insert with backoff, so no
// row is dropped (Antrea drops the oldest rows past 524,288 and whatever a stop does not flush in 10 s).
//
// A batch inserted twice (a retry after an answer that was lost, a redelivery after a crash) is in the
// table once, by the first of these the server and table allow (server.ts Deduplication):
// - token: the batch id is the insert_deduplication_token (servers with the setting, on a Replicated
//   table or a MergeTree with non_replicated_deduplication_window, as the table flowagg creates);
// - batch-column: on servers without tokens (Debian's 18.16) the table flowagg creates has a column with
//   each row's batch id; before a batch that may already be in (the first of each partition since start,
//   a batch re-cut from its recorded range, the retry of an insert whose answer was lost) the exporter
//   counts its rows and skips it if present.
//   One insert of one batch is one block, which ClickHouse writes atomically.
// - none: a table created by someone else on such a server; the runner counts those records in
//   flowagg_export_redelivered_records_total.
//
// createClickHouseExporter() validates the URL (as the section's schema does) and connects nothing;
// start() reads the CA file, reaches the server, reads what it can do, creates the schema and checks the
// table's columns. Any of that failing fails the start, naming the key at fault, and the runner tries
// again with backoff: a server down, credentials or a table being fixed, a CA file not mounted yet.
import { FlowaggError, errorMessage } from '../../lib/errors.js';
import { componentLogger, type Logger } from '../../lib/telemetry/logger.js';
import { componentMetrics } from '../../lib/telemetry/metrics.js';
import { EXPORT_STATE, notDelivered } from '../errors.js';
import { type ClusterUuidSource, resolveClusterUuid } from '../row/cluster-uuid.js';
import { CLICKHOUSE_COLUMNS } from '../row/columns.js';
import { ScannedRecord } from '../../schemas/flow-record-scanner.js';
import { scanEach } from '../flow-values.js';
import type { ExportBatch, Exporter } from '../types.js';
import { type ClickHouseConfig, type ClickHouseCredentials, credentialsFromEnv } from './config.js';
import { CLICKHOUSE_UNAVAILABLE } from './errors.js';
import { RowBinaryWriter } from './row-binary.js';
import { ClickHouseServer, type Deduplication, insertOutcome } from './server.js';
import { httpEndpoint } from './url.js';

const m = componentMetrics('export_clickhouse');
const metrics = {
  rows: m.counter('rows_total', 'Rows the server accepted'),
  bytes: m.counter('bytes_total', 'RowBinary bytes of the accepted inserts (before compression)'),
  failures: m.counter('insert_failures_total', 'Failed inserts, by whether the server may have taken the rows', ['outcome']),
  deduplication: m.gauge('deduplication', 'How a batch inserted twice is kept out of the table once more (token, batch-column; none: it would be there twice)', ['mode']),
  skipped: m.counter('skipped_batches_total', 'Batches found already in the table and not inserted again (batch-column deduplication)'),
};

export interface ClickHouseDeps {
  /** The Antrea cluster UUID of the clusterUUID column (Antrea's ConfigMap, in a cluster); "" when unknown. */
  readonly clusterUuid?: ClusterUuidSource;
  readonly credentials?: ClickHouseCredentials;
  readonly logger?: Logger;
}

export interface ClickHouseExporter extends Exporter {
  /** Known after start(): how a batch inserted twice is deduplicated. */
  readonly deduplication: Deduplication;
}

export function createClickHouseExporter(config: ClickHouseConfig, deps: ClickHouseDeps = {}): ClickHouseExporter {
  const logger = deps.logger ?? componentLogger('export-clickhouse');
  let clusterUuid = '';
  const endpoint = httpEndpoint(config.databaseURL, config.httpPort);
  /** Made by the first start (it reads the CA file). */
  let made: ClickHouseServer | undefined;
  const server = (): ClickHouseServer => {
    if (made === undefined) throw new FlowaggError(EXPORT_STATE, 'the ClickHouse exporter delivers only after start()');
    return made;
  };
  let deduplication: Deduplication = 'none';
  /** Partitions delivered to since start: their next batch is new, unless an insert's answer was lost. */
  const settled = new Set<string>();
  /** Batches whose insert may or may not have happened. */
  const uncertain = new Set<string>();
  const scanned = new ScannedRecord();

  async function alreadyInserted(batch: ExportBatch, partitionKey: string): Promise<boolean> {
    if (deduplication !== 'batch-column' || (settled.has(partitionKey) && !uncertain.has(batch.id) && batch.recut !== true)) return false;
    try {
      return await server().hasBatch(batch.id);
    } catch (err) {
      throw notDelivered(new FlowaggError(CLICKHOUSE_UNAVAILABLE, `cannot check whether batch ${batch.id} is in ${endpoint.url}: ${errorMessage(err)}`, { cause: err, retriable: true }));
    }
  }

  function rowsOf(batch: ExportBatch): { rows: Buffer; count: number } {
    const writer = new RowBinaryWriter(CLICKHOUSE_COLUMNS, Math.max(4096, batch.records.length * 512));
    const batchId = deduplication === 'batch-column' ? batch.id : undefined;
    let count = 0;
    scanEach(batch, scanned, (_, r) => {
      writer.write(r, clusterUuid, batchId);
      count++;
    });
    return { rows: writer.take(), count };
  }

  async function insert(batch: ExportBatch, rows: Buffer, count: number, signal: AbortSignal): Promise<void> {
    try {
      await server().insert(rows, batch.id, signal);
    } catch (err) {
      const outcome = insertOutcome(err);
      metrics.failures.inc({ outcome });
      if (outcome === 'unknown') uncertain.add(batch.id);
      const failure = new FlowaggError(CLICKHOUSE_UNAVAILABLE, `insert of batch ${batch.id} (${count} rows) into ${endpoint.url} failed: ${errorMessage(err)}`, {
        context: { batch: batch.id, url: endpoint.url },
        cause: err,
        retriable: true,
      });
      throw outcome === 'not-inserted' ? notDelivered(failure) : failure;
    }
    metrics.rows.inc(count);
    metrics.bytes.inc(rows.length);
  }

  return {
    kind: 'clickhouse',
    batching: { maxRecords: config.maxBatchRows, maxDelayMs: config.commitInterval },
    get deduplication() {
      return deduplication;
    },
    async start(signal?: AbortSignal) {
      clusterUuid = await resolveClusterUuid(deps.clusterUuid);
      made ??= new ClickHouseServer(config, deps.credentials ?? credentialsFromEnv(), logger);
      const version = await made.connect(signal);
      const caps = await made.capabilities(version);
      deduplication = await made.ensureSchema(caps);
      for (const mode of ['token', 'batch-column', 'none'] as const) metrics.deduplication.set({ mode }, mode === deduplication ? 1 : 0);
      logger.info(
        {
          url: endpoint.url,
          ...(endpoint.mappedFrom && { databaseURL: endpoint.mappedFrom }),
          database: config.database,
          version,
          ttl: caps.ttl && config.tableTTL > 0,
          deduplication,
        },
        deduplication !== 'none' ? 'ClickHouse ready' : 'ClickHouse ready; this server and table cannot tell a batch inserted twice (redeliveries are counted)',
      );
    },
    async deliver(batch: ExportBatch, signal: AbortSignal) {
      const partitionKey = `${batch.topic}/${batch.partition}`;
      if (await alreadyInserted(batch, partitionKey)) {
        metrics.skipped.inc();
        logger.info({ batch: batch.id }, 'batch already in the table (delivered before a restart or a lost answer); not inserted again');
      } else {
        const { rows, count } = rowsOf(batch);
        // A batch whose every record was unreadable has nothing to insert.
        if (count > 0) await insert(batch, rows, count, signal);
      }
      uncertain.delete(batch.id);
      settled.add(partitionKey);
    },
    async stop() {
      await made?.close();
    },
  };
}
