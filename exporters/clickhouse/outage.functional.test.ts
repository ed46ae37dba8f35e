// ClickHouse down for 30 s while 100,000 records flow through the runner and the exporter: afterwards
// every record is in the table exactly once, by row count, by distinct record and by the sum of every
// counter column. The outage is a proxy that cuts every connection, including inserts in flight.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createClient } from '@clickhouse/client';
import { clickHouseForTests } from '../../integration-tests/harness/clickhouse.js';
import { OutageProxy } from '../../integration-tests/harness/outage-proxy.js';
import { openEmbeddedLog } from '../../lib/log/embedded/index.js';
import { topicsSchema } from '../../lib/log/topics.js';
import { COUNTER_COLUMNS } from '../row/columns.js';
import { toFlowRow } from '../row/flow-row.js';
import { createExportRunner } from '../runner.js';
import { untilHolds } from '../../lib/testing/until.js';
import { DESTINATION_WAIT, flowThroughOutage } from '../testing/records.js';
import { clickHouseSection } from './config.js';
import { createClickHouseExporter } from './index.js';

const { server, skip } = clickHouseForTests();
const TOTAL = 100_000;

test('ClickHouse down for 30 s: every record arrives exactly once', { skip, timeout: 600_000 }, async () => {
  const url = new URL(server!.url);
  const proxy = await OutageProxy.start(url.hostname, Number(url.port));
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-ch-outage-'));
  const log = await openEmbeddedLog({ dir, fsync: { policy: 'interval' } });
  const database = `flowagg_outage_${randomBytes(4).toString('hex')}`;
  const admin = createClient({ url: server!.url, keep_alive: { enabled: false } });
  const topics = topicsSchema.parse({});
  const config = clickHouseSection.parse({ databaseURL: `http://127.0.0.1:${proxy.port}`, database, commitInterval: '1s', maxBatchRows: 5000, requestTimeout: '10s' });
  const exporter = createClickHouseExporter(config);
  const runner = createExportRunner({ topics, backoff: { initialMs: 500, maxMs: 4000 } }, { log, exporter });
  const expected = new Map<string, bigint>(COUNTER_COLUMNS.map((c) => [c, 0n]));
  try {
    await runner.start();
    await flowThroughOutage(log, topics.flowsProcessed, topics.flowsProcessedPartitions, TOTAL, proxy, 30_000, (r) => {
      const row = toFlowRow(r, '');
      for (const c of COUNTER_COLUMNS) expected.set(c, expected.get(c)! + BigInt(row[c]));
    });
    assert.ok(proxy.refused > 0, 'the exporter tried to reach ClickHouse during the outage');
    const count = async () => Number(await (await admin.query({ query: `SELECT count() FROM ${database}.flows`, format: 'TabSeparated' })).text());
    await untilHolds('every row in ClickHouse', count, (n) => n >= TOTAL, DESTINATION_WAIT);
    await runner.stop();

    const sums = COUNTER_COLUMNS.map((c) => `toString(sum(${c})) AS sum_${c}`).join(', ');
    const rs = await admin.query({ query: `SELECT toString(count()) AS n, toString(uniqExact(octetDeltaCount)) AS distinct, ${sums} FROM ${database}.flows`, format: 'JSONEachRow' });
    const [got] = await rs.json<Record<string, string>>();
    assert.equal(got!.n, String(TOTAL), 'row count');
    assert.equal(got!.distinct, String(TOTAL), 'distinct records');
    for (const c of COUNTER_COLUMNS) assert.equal(got![`sum_${c}`], String(expected.get(c)), `sum(${c})`);
  } finally {
    await runner.stop().catch(() => {});
    await log.close();
    await proxy.close();
    await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await admin.close();
    await rm(dir, { recursive: true, force: true });
  }
});
