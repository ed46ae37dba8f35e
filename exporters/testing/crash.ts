// The crash test every row exporter runs (exporters/<kind>/crash.functional.test.ts): records written to
// flows.processed of an embedded log, then `flowagg export KIND` started and killed with SIGKILL at
// random moments ten times, then run once more until the destination holds every record, then stopped
// with SIGTERM. The caller checks what the destination holds. Production code never imports this file.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crashLoop, startFlowagg } from '../../integration-tests/harness/crash-loop.js';
import { openEmbeddedLog } from '../../lib/log/embedded/index.js';
import { topicsSchema } from '../../lib/log/topics.js';
import { untilHolds } from '../../lib/testing/until.js';
import { aggregatedRecord, DESTINATION_WAIT, writeRecords } from './records.js';
import type { ExporterKind } from '../types.js';

export interface Delivered {
  /** Records at the destination, duplicates included. */
  readonly records: number;
  /** Distinct records at the destination. */
  readonly distinct: number;
}

export interface CrashRun extends Delivered {
  readonly seed: number;
  readonly delaysMs: readonly number[];
  /** Log lines of all runs (killed ones and the last) that match `logPattern`: evidence of what the kills hit. */
  readonly logMatches: number;
}

export async function exportThroughCrashes(opts: {
  readonly kind: ExporterKind;
  /** The exporter's section, YAML, appended to the configuration. */
  readonly sectionYaml: string;
  readonly total: number;
  readonly delivered: () => Promise<Delivered>;
  readonly env?: NodeJS.ProcessEnv;
  readonly kills?: number;
  readonly logPattern?: RegExp;
}): Promise<CrashRun> {
  const dir = await mkdtemp(join(tmpdir(), `flowagg-crash-${opts.kind}-`));
  try {
    const logDir = join(dir, 'log');
    const topics = topicsSchema.parse({});
    const log = await openEmbeddedLog({ dir: logDir, fsync: { policy: 'interval' } });
    await log.admin().createTopics([{ topic: topics.flowsProcessed, partitions: topics.flowsProcessedPartitions }]);
    for (let from = 0; from < opts.total; from += 5000) {
      const records = Array.from({ length: Math.min(5000, opts.total - from) }, (_, k) => aggregatedRecord(from + k));
      await writeRecords(log, topics.flowsProcessed, records, (k) => (from + k) % topics.flowsProcessedPartitions);
    }
    await log.close();
    const config = join(dir, 'flowagg.yaml');
    await writeFile(config, `log:\n  embedded:\n    dir: ${logDir}\n    fsync:\n      policy: interval\napiServer:\n  apiPort: 0\n  protocol: http\n${opts.sectionYaml}`);
    const argv = ['export', opts.kind, '--config', config];
    const seed = Number(process.env.FLOWAGG_CRASH_SEED ?? Date.now() % 1_000_000);
    const { delaysMs, logs } = await crashLoop(argv, 'exporter started', { kills: opts.kills ?? 10, maxDelayMs: 1500, seed, ...(opts.env && { env: opts.env }) });
    const last = startFlowagg(argv, 'exporter started', opts.env);
    const drained = last.ready.then(() => untilHolds(`every record at the ${opts.kind} destination (seed ${seed})`, opts.delivered, (d) => d.distinct >= opts.total, DESTINATION_WAIT));
    await drained.catch(() => {});
    last.process.kill('SIGTERM');
    const { code } = await last.exited;
    await drained;
    if (code !== 0) throw new Error(`flowagg export ${opts.kind} exited ${code} on SIGTERM:\n${last.stderr().slice(-4000)}`);
    const pattern = opts.logPattern;
    const logMatches = pattern === undefined ? 0 : [...logs, last.stderr()].reduce((n, l) => n + l.split('\n').filter((x) => pattern.test(x)).length, 0);
    return { ...(await opts.delivered()), seed, delaysMs, logMatches };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
