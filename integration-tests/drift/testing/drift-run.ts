// The `flowagg run` a drift scenario sends to: started in a fresh directory with the scenario configuration,
// settled (everything sent is in flows.raw, the processor has read it all and the flow log exporter has read
// everything the processor wrote), its count of uncorrelated halves, and a replay from the start.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { untilHolds } from '../../../lib/testing/until.js';
import { readLogApi, remoteAdmin } from '../../../lib/log/admin-api.js';
import { metricLines, recordMetrics, type Run, startRun } from '../../harness/flowagg-run.js';
import { runTool } from '../../harness/tools.js';
import { scenarioConfig } from './time-model.js';

const CLI = join(import.meta.dirname, '../../../bin/flowagg.js');
const CONFIG = 'flowagg.yaml';
const PROCESSOR_GROUP = 'flowagg-processor';
const FLOW_LOG_GROUP = 'flowagg-export-flowlog';
const SETTLE_TIMEOUT_MS = 60_000;

export async function startDriftRun(dir: string): Promise<Run> {
  writeFileSync(join(dir, CONFIG), scenarioConfig());
  return startRun(dir, { args: ['--config', CONFIG] });
}

/**
 * Resolves once ingest has written `recordsSent` records (since this run started) and both groups have
 * read all there is: at most the marker of the last transaction left on a partition, which the embedded
 * log's lag counts. The processor's lag is taken first, so that the flow log's covers what it wrote.
 */
export async function settled(run: Run, dir: string, recordsSent: number): Promise<void> {
  const admin = remoteAdmin(readLogApi(join(dir, 'data', 'log'))!);
  const lags = async (group: string) => (await admin.fetchGroupLag(group)).map((p) => p.lag);
  const progress = async () => ({ written: (await recordMetrics(run)).numRecordsWritten, processorLags: await lags(PROCESSOR_GROUP), flowLogLags: await lags(FLOW_LOG_GROUP) });
  // A group the log knows nothing of yet (no member subscribed, nothing committed) has no rows: not caught up.
  const caughtUp = (partitionLags: number[]) => partitionLags.length > 0 && partitionLags.every((lag) => lag <= 1);
  await untilHolds(`flowagg run to write ${recordsSent} records and settle`, progress, (p) => p.written >= recordsSent && caughtUp(p.processorLags) && caughtUp(p.flowLogLags), { timeoutMs: SETTLE_TIMEOUT_MS, intervalMs: 200 });
}

/** Halves the processor gave up waiting for their peer (flowagg_processor_uncorrelated_flows_total, every action). */
export async function uncorrelatedCount(run: Run): Promise<number> {
  const lines = await metricLines(run, 'flowagg_processor_uncorrelated_flows_total');
  return lines.reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
}

/** With the run in `dir` stopped: moves the processor's group on flows.raw back to the start and starts it again, the log replayed. */
export async function replayFromStart(dir: string): Promise<Run> {
  await runTool(process.execPath, [CLI, 'offsets', 'reset', '--group', PROCESSOR_GROUP, '--topic', 'flows.raw', '--to-earliest', '--config', CONFIG], { cwd: dir, timeoutMs: 30_000 });
  return startDriftRun(dir);
}
