// The flow log exporter (`flowLogger` section, reference §3, §7.4): one line per record of
// flows.processed, CSV with Antrea's 30 columns or JSON (schemas/flow-record-json.ts: the keys
// `flowagg pipeline` prints), into a file rotated by size (log-file.ts). Each line is written from the
// scanned record straight into the batch's bytes by a writer compiled for the format (csv.ts,
// schemas/flow-record-json-writer.ts): decoding every record into an object and stringifying it had
// cost ten times the rest. A
// batch is accepted once its lines are written and fsync'ed, and a batch delivered again after a crash
// adds nothing twice (log-file.ts says how).
//
// createFlowLogExporter() is inert; start() opens the file (and repairs it after a crash), so a path
// that cannot be written fails there, naming flowLogger.path.
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FlowaggError, errorMessage } from '../../lib/errors.js';
import { componentLogger, type Logger } from '../../lib/telemetry/logger.js';
import { componentMetrics } from '../../lib/telemetry/metrics.js';
import { writeFlowRecordJson } from '../../schemas/flow-record-json-writer.js';
import { FIELD, ScannedRecord } from '../../schemas/flow-record-scanner.js';
import { scanEach } from '../flow-values.js';
import type { ExportBatch, Exporter } from '../types.js';
import type { FlowLoggerConfig } from './config.js';
import { csvLineWriter } from './csv.js';
import { FLOWLOG_IO } from './errors.js';
import { compileFilters, type RuleActions } from './filters.js';
import { LineBuffer } from '../row/line-buffer.js';
import { LogFile } from './log-file.js';

const DAY_MS = 86_400_000;
const INGRESS_ACTION = FIELD.ingressNetworkPolicyRuleAction!;
const EGRESS_ACTION = FIELD.egressNetworkPolicyRuleAction!;

const m = componentMetrics('export_flowlog');
const metrics = {
  lines: m.counter('lines_total', 'Lines written to the flow log and synced'),
  bytes: m.counter('bytes_total', 'Bytes written to the flow log and synced'),
  filtered: m.counter('filtered_records_total', 'Records no flowLogger filter passed (not logged)'),
  skipped: m.counter('skipped_records_total', 'Records delivered again after a crash that were already in the log (not written twice)'),
  rotations: m.counter('rotations_total', 'Rotations of the flow log file'),
};

export interface FlowLogDeps {
  readonly logger?: Logger;
  readonly now?: () => number;
}

export function createFlowLogExporter(config: FlowLoggerConfig, deps: FlowLogDeps = {}): Exporter {
  const logger = deps.logger ?? componentLogger('export-flowlog');
  const passes = compileFilters(config.filters);
  const write = config.recordFormat === 'JSON' ? writeFlowRecordJson : csvLineWriter(config.prettyPrint);
  const scanned = new ScannedRecord();
  const actions: RuleActions = { ingressNetworkPolicyRuleAction: 0, egressNetworkPolicyRuleAction: 0 };
  let file: LogFile | undefined;
  // One buffer per batch in flight (batches of different partitions may be), each used again by the
  // batches after it.
  const spareLines: LineBuffer[] = [];

  const ioError = (what: string, err: unknown) =>
    new FlowaggError(FLOWLOG_IO, `flowLogger.path ${config.path}: cannot ${what}: ${errorMessage(err)}`, { context: { key: 'flowLogger.path', path: config.path }, cause: err, retriable: true });

  return {
    kind: 'flowlog',
    // Antrea flushes its buffered writer every 5 s; a second between a record and its line on disk is
    // enough to batch the fsyncs.
    batching: { maxRecords: 20_000, maxDelayMs: 1000 },
    async start() {
      try {
        await mkdir(dirname(config.path), { recursive: true });
        file = await LogFile.open({
          path: config.path,
          maxBytes: config.maxSize * 1024 * 1024,
          maxBackups: config.maxBackups,
          maxAgeMs: config.maxAge * DAY_MS,
          compress: config.compress,
          logger,
          ...(deps.now && { now: deps.now }),
        });
      } catch (err) {
        throw ioError('open the flow log', err);
      }
      logger.info({ path: config.path, format: config.recordFormat, filters: config.filters.length }, 'flow log open');
    },
    async deliver(batch: ExportBatch) {
      if (file === undefined) throw new FlowaggError('FLOWAGG_ERR_EXPORT_STATE', 'flow log exporter: deliver() before start()');
      const lines = spareLines.pop() ?? new LineBuffer();
      try {
        await writeBatch(file, batch, lines);
      } finally {
        lines.clear();
        spareLines.push(lines);
      }
    },
    async stop() {
      await file?.close();
      file = undefined;
    },
  };

  async function writeBatch(file: LogFile, batch: ExportBatch, lines: LineBuffer): Promise<void> {
    let filtered = 0;
    scanEach(batch, scanned, ({ offset }) => {
      actions.ingressNetworkPolicyRuleAction = scanned.num0(INGRESS_ACTION);
      actions.egressNetworkPolicyRuleAction = scanned.num0(EGRESS_ACTION);
      if (passes(actions)) lines.end(offset, write(scanned, lines));
      else filtered++;
    });
    let result;
    try {
      result = await file.append(`${batch.topic}/${batch.partition}`, lines, batch.lastOffset + 1);
    } catch (err) {
      throw ioError('append to the flow log', err);
    }
    if (result.skipped > 0) logger.info({ batch: batch.id, records: result.skipped }, 'records already in the log (delivered before a restart); not written again');
    metrics.lines.inc(lines.count - result.skipped);
    metrics.bytes.inc(result.bytes);
    metrics.filtered.inc(filtered);
    metrics.skipped.inc(result.skipped);
    metrics.rotations.inc(result.rotations);
  }
}
