// DESIGN.md "An exporter's destination being down loses nothing": the IPFIX collector (TCP) stops for
// 30 s while 100,000 records flow through flows.processed; afterwards every record is at the collector
// exactly once, as decoding everything it received shows.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openEmbeddedLog } from '../../lib/log/embedded/index.js';
import { topicsSchema } from '../../lib/log/topics.js';
import { createExportRunner } from '../../exporters/runner.js';
import { CollectedDecoder, ipfixExporter } from '../../exporters/ipfix/testing/exporter.js';
import { numberedRecord, writeRecords } from '../../exporters/testing/records.js';
import { startTcpCollector } from '../harness/collector.js';

const TOTAL = 100_000;
const OUTAGE_MS = 30_000;

test('a 30 s collector outage while 100,000 records flow: every record arrives exactly once', { timeout: 300_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-ipfix-outage-'));
  const log = await openEmbeddedLog({ dir, fsync: { policy: 'interval' } });
  const topics = topicsSchema.parse({ flowsProcessedPartitions: 4 });
  let collector = await startTcpCollector();
  const port = collector.port;
  const received = [new CollectedDecoder(collector.messages)];
  const exporter = ipfixExporter({ address: `127.0.0.1:${port}:tcp`, batchRecords: 2000, batchDelay: 200 });
  const runner = createExportRunner({ topics }, { log, exporter });
  const count = () => received.reduce((n, d) => n + d.update(), 0);
  try {
    await runner.start();
    const write = (from: number, n: number) => writeRecords(log, topics.flowsProcessed, Array.from({ length: n }, (_, i) => numberedRecord(from + i)), (i) => (from + i) % 4);
    await write(0, 30_000);
    while (count() < 10_000) await collector.waitForMessages(collector.messages.length + 1, 60_000);

    await collector.drainAndClose();
    const downAt = Date.now();
    for (let from = 30_000; from < TOTAL; from += 10_000) await write(from, 10_000);
    await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - downAt))));
    const readiness = runner.readiness();
    assert.equal(readiness.ready, true, 'a collector down is no reason to take the process out of service');
    assert.match(readiness.detail ?? '', /^exporter ipfix: destination unreachable since .*, retrying: /);

    collector = await startTcpCollector('127.0.0.1', { port });
    received.push(new CollectedDecoder(collector.messages));
    while (count() < TOTAL) await collector.waitForMessages(collector.messages.length + 1, 120_000);
    await runner.stop();

    const seen = new Map<number, number>();
    for (const d of received) for (const r of d.records) seen.set(r.octetDeltaCount as number, (seen.get(r.octetDeltaCount as number) ?? 0) + 1);
    const missing = Array.from({ length: TOTAL }, (_, i) => i).filter((i) => !seen.has(i));
    const duplicated = [...seen].filter(([, n]) => n > 1);
    assert.deepEqual([missing.length, duplicated.length, seen.size], [0, 0, TOTAL]);
    const lag = await log.admin().fetchGroupLag(runner.groupId);
    assert.equal(lag.reduce((n, l) => n + (l.committed ?? 0), 0), TOTAL, 'everything committed');
  } finally {
    await runner.stop().catch(() => undefined);
    await collector.close();
    await log.close();
    await rm(dir, { recursive: true, force: true });
  }
});
