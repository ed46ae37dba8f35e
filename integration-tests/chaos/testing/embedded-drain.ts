// The end of a chaos run on the embedded log: `flowagg run` up again, then quiet (its processor holds no
// flow and has read flows.raw, no exporter is retrying, and the exporter groups' lags stay where they are),
// then stopped (SIGTERM), and the log, now free of its lock, judged as the Kafka test judges it live
// (drain.ts: every exporter group committed past the last record of flows.processed). Lags seen over the
// API cannot tell that alone: they count up to the partition's end, transaction markers included. When
// something was still in flight, `flowagg run` is started again to finish it.
import { metricValue } from '../../../ingest/attacks/testing/harness.js';
import { readLogApi, remoteAdmin } from '../../../lib/log/admin-api.js';
import { type EmbeddedLog, openEmbeddedLog } from '../../../lib/log/embedded/index.js';
import { until } from '../../../lib/testing/until.js';
import { RAW_PARTITIONS } from './config.js';
import { EXPORT_GROUPS, RecordTail, allRunning, lagOn, leftInFlight } from './drain.js';
import { type EmbeddedDeployment, stopRun } from './embedded-deployment.js';

/** Resolves once the run looked drained three times in a row, a second apart. */
async function quiet(d: EmbeddedDeployment, timeoutMs: number): Promise<void> {
  let held = 0;
  let last = '';
  await until('flowagg run quiet (no flow held, flows.raw read, no exporter retrying, exporter lags still)', async () => {
    const api = readLogApi(d.logDir);
    if (api === undefined) throw new Error('no .api.json in the log directory');
    const admin = remoteAdmin(api, 5000);
    const flows = (JSON.parse(await d.run.get('/recordmetrics')) as { numFlows: number }).numFlows;
    const retrying = metricValue(await d.run.get('/metrics'), 'flowagg_export_retrying_partitions');
    const rawLag = await lagOn({ admin: () => admin }, d.processorGroup, d.topics.flowsRaw);
    const exportLags = JSON.stringify(await Promise.all(EXPORT_GROUPS.map((g) => lagOn({ admin: () => admin }, g, d.topics.flowsProcessed))));
    held = flows === 0 && retrying === 0 && rawLag <= 3 * RAW_PARTITIONS && exportLags === last ? held + 1 : 0;
    last = exportLags;
    if (held >= 3) return true;
    throw new Error(`${flows} flows held, ${retrying} partitions retrying, flows.raw lag ${rawLag}, exporter lags ${exportLags}`);
  }, { timeoutMs, intervalMs: 1000 });
}

/** Drains and stops `flowagg run`; resolves with its log, open, and what its stops did wrong. */
export async function drainEmbedded(d: EmbeddedDeployment, timeoutMs: number, say: (line: string) => void): Promise<{ log: EmbeddedLog; stopped: string[] }> {
  const deadline = Date.now() + timeoutMs;
  const stopped: string[] = [];
  for (;;) {
    const left = () => Math.max(1000, deadline - Date.now());
    await until('flowagg run running again', () => allRunning([d.run]), { timeoutMs: left(), intervalMs: 500 });
    await quiet(d, left());
    stopped.push(...(await stopRun(d)));
    const log = await openEmbeddedLog({ dir: d.logDir });
    const reader = log.reader();
    const inFlight = await leftInFlight(log, { flows: 0, processorGroup: d.processorGroup, topics: d.topics, tail: new RecordTail(reader, d.topics.flowsProcessed) }).finally(() => reader.close());
    if (inFlight === undefined) return { log, stopped };
    await log.close();
    if (Date.now() > deadline) throw new Error(`not drained: ${inFlight}`);
    say(`stopped quiet, yet ${inFlight}: started again to drain`);
    await d.run.start();
  }
}
