// DESIGN.md "No record is lost ... across kill -9": the IPFIX exporter process is killed with SIGKILL at
// random moments, ten times, while it exports; restarted each time, it resumes from its committed
// offsets. Nothing is missing at the collector. IPFIX cannot deduplicate, so records delivered before a
// kill and again after it are duplicates there, and every one of them is counted in
// flowagg_export_redelivered_records_total.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openEmbeddedLog } from '../../lib/log/embedded/index.js';
import { spawnTs } from '../../lib/log/embedded/testing/spawn.js';
import { topicsSchema } from '../../lib/log/topics.js';
import { CollectedDecoder } from '../../exporters/ipfix/testing/exporter.js';
import { numberedRecord, writeRecords } from '../../exporters/testing/records.js';
import { startTcpCollector } from '../harness/collector.js';

const TOTAL = 40_000;
const KILLS = 10;
const CHILD = new URL('./testing/ipfix-export-child.ts', import.meta.url).pathname;

test('SIGKILL at random moments, 10 times: nothing missing, every duplicate counted as redelivered', { timeout: 400_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-ipfix-crash-'));
  const collector = await startTcpCollector();
  try {
    const topics = topicsSchema.parse({ flowsProcessedPartitions: 2 });
    const log = await openEmbeddedLog({ dir });
    await log.admin().createTopics([{ topic: topics.flowsProcessed, partitions: 2 }]);
    await writeRecords(log, topics.flowsProcessed, Array.from({ length: TOTAL }, (_, i) => numberedRecord(i)), (i) => i % 2);
    await log.close();

    let redelivered = 0;
    const run = () => {
      const child = spawnTs(CHILD, [dir, String(collector.port)]);
      // Each process counts from 0: its total adds to what the ones before it counted.
      const base = redelivered;
      child.proc.stdout.on('data', () => {
        const last = child.lines.filter((l) => l.startsWith('redelivered ')).at(-1);
        if (last !== undefined) redelivered = base + Number(last.slice('redelivered '.length));
      });
      return child;
    };
    for (let k = 0; k < KILLS; k++) {
      const child = run();
      await child.waitForLine((l) => l === 'started');
      // At a random point of this process's progress (its 1st to 4th message), not of the clock: a timed
      // kill could land once the whole input was delivered (a quiet machine delivers it in under a
      // second) or before the first batch (a loaded one may take seconds), and prove nothing either way.
      // Ten kills of at most four messages each leave most of the input for the last process.
      await collector.waitForMessages(collector.messages.length + 1 + Math.floor(Math.random() * 4), 60_000);
      child.proc.kill('SIGKILL');
      await child.exited;
    }
    const child = run();
    await child.waitForLine((l) => l === 'started');
    const decoded = new CollectedDecoder(collector.messages);
    const ids = new Set<unknown>();
    const unique = () => {
      const from = decoded.records.length;
      decoded.update();
      for (let i = from; i < decoded.records.length; i++) ids.add(decoded.records[i]!.octetDeltaCount);
      return ids.size;
    };
    while (unique() < TOTAL) await collector.waitForMessages(collector.messages.length + 1, 120_000);
    child.proc.kill('SIGTERM');
    await child.exited;

    const seen = new Map<number, number>();
    unique();
    for (const r of decoded.records) seen.set(r.octetDeltaCount as number, (seen.get(r.octetDeltaCount as number) ?? 0) + 1);
    const missing = Array.from({ length: TOTAL }, (_, i) => i).filter((i) => !seen.has(i));
    const duplicates = [...seen.values()].reduce((n, c) => n + c - 1, 0);
    t.diagnostic(`${TOTAL} records, ${KILLS} kills: ${duplicates} duplicates at the collector, ${redelivered} counted as redelivered`);
    assert.equal(missing.length, 0, 'no record missing');
    assert.ok(duplicates <= redelivered, `${duplicates} duplicates at the collector, ${redelivered} records counted as redelivered`);
    assert.ok(redelivered > 0, 'the kills landed while batches were in flight');
  } finally {
    await collector.close();
    await rm(dir, { recursive: true, force: true });
  }
});
