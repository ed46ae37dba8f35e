// An outage that outlasts the log's retention (embedded log): the records retention removed before the
// exporter read them are counted (flowagg_export_lost_to_retention_offsets_total) and named in the log
// with their partition and offset range; everything else, what the exporter held in memory too, arrives
// once. exporters/retention.functional.test.ts is the same on Kafka.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { assertLossCountedAndNamed, outageOutlastingRetention } from './testing/retention.js';

test('embedded log: records retention removed before the exporter read them are counted and named; the rest arrives once', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-export-retention-'));
  // Small segments, and maintenance only when the test runs it.
  const log = await openEmbeddedLog({ dir, fsync: { policy: 'interval' }, segmentBytes: 4096, maintenanceInterval: '1h' });
  try {
    const outcome = await outageOutlastingRetention(
      log,
      (topics) => log.admin().createTopics([{ topic: topics.flowsProcessed, partitions: 2, cleanupPolicy: 'delete', retentionBytes: 16_384 }]),
      () => log.runMaintenance(),
    );
    assertLossCountedAndNamed(outcome);
  } finally {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  }
});
