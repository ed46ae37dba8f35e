// Antrea's chart-rendered flow-aggregator.conf with ClickHouse enabled (lib/config/testdata/
// antrea-clickhouse.conf) runs unchanged against a real server: its databaseURL is the chart's native
// tcp://…:9000, which flowagg speaks as HTTP on the port clickHouse.httpPort names. The server and its
// ports are the test's, set from the environment as a deployment's would be.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { createClient } from '@clickhouse/client';
import { until } from '../../lib/testing/until.js';
import { clickHouseForTests } from '../harness/clickhouse.js';
import { runConf, simulateAgents, stopConf } from './testing/conf-run.js';
import { confFile } from './testing/conf-run.js';

const { server, skip } = clickHouseForTests();
const admin = server && createClient({ url: server.url });
// The file's database is `default`; the test takes one of its own on the shared server.
const database = `flowagg_antrea_conf_${randomBytes(4).toString('hex')}`;
after(async () => {
  await admin?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await admin?.close();
});

test('ClickHouse: tcp://host:9000 with clickHouse.httpPort; the flows table gets the aggregated flows', { skip }, async (t) => {
  const http = new URL(server!.url);
  const c = await runConf(t, confFile('clickhouse'), {
    FLOWAGG_CFG_CLICKHOUSE_DATABASEURL: `tcp://${http.hostname}:9000`,
    FLOWAGG_CFG_CLICKHOUSE_HTTPPORT: http.port,
    FLOWAGG_CFG_CLICKHOUSE_DATABASE: database,
  });
  assert.match(c.run.child.stderr(), new RegExp(`"databaseURL":"tcp://${http.hostname}:9000"`), 'the native URL, logged as mapped');
  await simulateAgents(c, t.signal);
  const count = async () => Number((await (await admin!.query({ query: `SELECT count() AS n FROM ${database}.flows`, format: 'JSONEachRow' })).json<{ n: string }>())[0]!.n);
  await until('rows in the flows table', async () => (await count()) > 0, { intervalMs: 500 });
  // The first rows may all be flows whose second half was still on its way; a correlated one follows.
  const correlated = async () => (await (await admin!.query({ query: `SELECT sourcePodName FROM ${database}.flows WHERE flowType = 2 AND destinationPodName != '' AND sourcePodName != '' LIMIT 1`, format: 'JSONEachRow' })).json<{ sourcePodName: string }>()).length > 0;
  await until('an inter-Node flow with both Pods (correlated) in the flows table', correlated, { intervalMs: 500 });
  await stopConf(c);
});
