// The ClickHouse exporter killed with SIGKILL at random moments ten times while it inserts 50,000
// records: afterwards the table holds every record exactly once. The batch in flight at a kill is
// delivered again after the restart and found in the table (batch-column deduplication on servers
// without insert tokens, the token on newer ones); with a table that cannot deduplicate, the test would
// have to accept the runner's count of redelivered records instead, and it says so if that happens.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { createClient } from '@clickhouse/client';
import { clickHouseForTests } from '../../integration-tests/harness/clickhouse.js';
import { exportThroughCrashes } from '../testing/crash.js';

const { server, skip } = clickHouseForTests();
const admin = server && createClient({ url: server.url, keep_alive: { enabled: false } });
const database = `flowagg_crash_${randomBytes(4).toString('hex')}`;
after(async () => {
  await admin?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await admin?.close();
});

test('ClickHouse: SIGKILL at random moments ten times, every record once', { skip, timeout: 600_000 }, async (t) => {
  const run = await exportThroughCrashes({
    kind: 'clickhouse',
    total: 50_000,
    sectionYaml: `clickHouse:\n  databaseURL: "${server!.url}"\n  database: ${database}\n  commitInterval: 1s\n  maxBatchRows: 1000\n`,
    logPattern: /already in the table/,
    delivered: async () => {
      const rs = await admin!.query({ query: `SELECT toUInt32(count()) AS records, toUInt32(uniqExact(octetDeltaCount)) AS distinct FROM ${database}.flows`, format: 'JSONEachRow' });
      const [row] = await rs.json<{ records: number; distinct: number }>();
      return row!;
    },
  });
  t.diagnostic(`seed ${run.seed}; batches found already inserted after a restart: ${run.logMatches}`);
  assert.equal(run.distinct, 50_000, `every record (seed ${run.seed}, kills after ${run.delaysMs.join(', ')} ms)`);
  assert.equal(run.records, 50_000, `no record twice (seed ${run.seed})`);
});
