// Compaction of a changelog like processor.state: 200,000 keys of 300-byte records written once, then
// 40 rounds that each update a random tenth of them (the flows a checkpoint changed) and run the log's
// maintenance, as its timer does. The figure is the records appended per CPU-second the passes took:
// how much changelog one core of cleaning keeps up with. Run with the default minCleanableDirtyRatio
// (0.5) and with 0, a pass whenever a segment closed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import type { ProduceRecord } from '../lib/log/types.js';
import { seededRandom } from '../lib/prng.js';
import type { BenchResult, Benchmark } from './types.js';

const KEYS = 200_000;
const ROUNDS = 40;
const UPDATED_PER_ROUND = KEYS / 10;
const SEND_BATCH = 5_000;

const record = (key: number, round: number): ProduceRecord => {
  const k = Buffer.from(`flow-${key}`.padEnd(24, '.'));
  return { key: k, value: Buffer.alloc(300 - k.length, round & 255) };
};

async function runCase(ratio: number, log: (line: string) => void): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-bench-compaction-'));
  const mlog = await openEmbeddedLog({ dir, segmentBytes: 8 * 2 ** 20, maintenanceInterval: '24h', fsync: { policy: 'interval' }, minCleanableDirtyRatio: ratio });
  const random = seededRandom(1);
  let appended = 0;
  let cpuSeconds = 0;
  let wallMs = 0;
  const send = async (keys: readonly number[], round: number) => {
    for (let i = 0; i < keys.length; i += SEND_BATCH) await mlog.producer().send('state', keys.slice(i, i + SEND_BATCH).map((k) => record(k, round)));
    appended += keys.length;
  };
  const maintain = async () => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await mlog.runMaintenance();
    const c = process.cpuUsage(c0);
    cpuSeconds += (c.user + c.system) / 1e6;
    wallMs += performance.now() - t0;
  };
  try {
    await mlog.admin().createTopics([{ topic: 'state', partitions: 1, cleanupPolicy: 'compact' }]);
    await send(Array.from({ length: KEYS }, (_, k) => k), 0);
    await maintain();
    for (let round = 1; round <= ROUNDS; round++) {
      await send(Array.from({ length: UPDATED_PER_ROUND }, () => Math.floor(random() * KEYS)), round);
      await maintain();
    }
    const name = `compaction, ${KEYS.toLocaleString('en')} keys, ${ROUNDS} rounds of ${UPDATED_PER_ROUND.toLocaleString('en')} updates, minCleanableDirtyRatio ${ratio}`;
    log(`${name}: ${cpuSeconds.toFixed(2)} CPU-s in ${(wallMs / 1000).toFixed(1)} s of passes for ${appended} records`);
    return [
      { name: `${name}: records appended per CPU-s of compaction`, value: Math.round(appended / cpuSeconds), unit: 'records/CPU-s', note: `${cpuSeconds.toFixed(2)} CPU-s of compaction in ${ROUNDS + 1} passes (${(wallMs / 1000).toFixed(1)} s), ${appended} records of 300 bytes, 8 MiB segments` },
    ];
  } finally {
    await mlog.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const bench: Benchmark = async (log) => [...(await runCase(0.5, log)), ...(await runCase(0, log))];
export default bench;
