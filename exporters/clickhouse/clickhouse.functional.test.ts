// The ClickHouse exporter against a real server (Debian's 18.16 from infra/dev/clickhouse, or whatever
// CLICKHOUSE_URL names): the schema it creates, every column of the rows it inserts, deduplication as far
// as the server has it, TLS and credentials, and configuration errors that name their key.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createClient } from '@clickhouse/client';
import { isFlowaggError } from '../../lib/errors.js';
import { clickHouseForTests } from '../../integration-tests/harness/clickhouse.js';
import { CLICKHOUSE_COLUMNS, COUNTER_COLUMNS } from '../row/columns.js';
import { toFlowRow } from '../row/flow-row.js';
import { aggregatedRecord, batchOf, closedPort } from '../testing/records.js';
import { clickHouseSection } from './config.js';
import { createClickHouseExporter } from './index.js';

const { server, skip } = clickHouseForTests();
const signal = new AbortController().signal;
const databases: string[] = [];
const admin = server && createClient({ url: server.url, clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });

after(async () => {
  for (const db of databases) await admin?.command({ query: `DROP DATABASE IF EXISTS ${db}` });
  await admin?.close();
});

function database(): string {
  const db = `flowagg_test_${randomBytes(4).toString('hex')}`;
  databases.push(db);
  return db;
}

const config = (over: Record<string, unknown> = {}) => clickHouseSection.parse({ databaseURL: server!.url, database: database(), commitInterval: '1s', ...over });

async function rows<T>(query: string): Promise<T[]> {
  const rs = await admin!.query({ query, format: 'JSONEachRow' });
  return rs.json<T>();
}


describe('ClickHouse exporter against a real server', { skip }, () => {
  it('creates the schema and inserts every column of every row', async () => {
    const cfg = config();
    const exporter = createClickHouseExporter(cfg, { clusterUuid: '11111111-2222-4333-8444-555555555555' });
    await exporter.start();
    const batches = [batchOf(0, 0, 500), batchOf(1, 0, 300), batchOf(0, 500, 200)];
    for (const b of batches) await exporter.deliver(b, signal);
    await exporter.stop();

    const tables = await rows<{ name: string }>(`SELECT name FROM system.tables WHERE database = '${cfg.database}' ORDER BY name`);
    assert.deepEqual(tables.map((t) => t.name).filter((n) => !n.startsWith('.inner')), ['flows', 'flows_node_view', 'flows_pod_view', 'flows_policy_view']);

    const expected = batches.flatMap((b) => b.records.map((r) => toFlowRow(b.values.decode(r.value), '11111111-2222-4333-8444-555555555555')));
    const sums = COUNTER_COLUMNS.map((c) => `toString(sum(${c})) AS ${c}`).join(', ');
    const [got] = await rows<Record<string, string>>(`SELECT toString(count()) AS n, ${sums} FROM ${cfg.database}.flows`);
    assert.equal(got!.n, String(expected.length));
    for (const c of COUNTER_COLUMNS) assert.equal(got![c], String(expected.reduce((s, r) => s + BigInt(r[c]), 0n)), `sum(${c})`);

    // Every column of two rows, one IPv4 and one IPv6, read back.
    const select = CLICKHOUSE_COLUMNS.map((c) => (c.type === 'DateTime' ? `toUInt32(${c.name}) AS ${c.name}` : c.name)).join(', ');
    for (const i of [3, 9]) {
      const want = toFlowRow(aggregatedRecord(i), '11111111-2222-4333-8444-555555555555');
      const back = await rows<Record<string, unknown>>(`SELECT ${select} FROM ${cfg.database}.flows WHERE sourceTransportPort = ${want.sourceTransportPort} AND octetDeltaCount = ${String(want.octetDeltaCount)} LIMIT 1`);
      for (const c of CLICKHOUSE_COLUMNS) {
        assert.equal(back[0]![c.name], want[c.name], `record ${i}, column ${c.name}`);
      }
    }
    const [pod] = await rows<{ n: number }>(`SELECT toUInt32(count()) AS n FROM ${cfg.database}.flows_pod_view`);
    assert.ok(pod!.n > 0, 'the pod view receives the rows');
  });

  it('keeps a batch delivered twice (the first after a start) in the table once', async () => {
    const cfg = config();
    const exporter = createClickHouseExporter(cfg);
    await exporter.start();
    const batch = batchOf(2, 1000, 100);
    await exporter.deliver(batch, signal);
    await exporter.stop();
    const restarted = createClickHouseExporter(cfg);
    await restarted.start();
    await restarted.deliver(batch, signal); // redelivered after a restart
    await restarted.deliver(batchOf(2, 1100, 50), signal);
    await restarted.stop();
    const [got] = await rows<{ n: number }>(`SELECT toUInt32(count()) AS n FROM ${cfg.database}.flows`);
    assert.notEqual(restarted.deduplication, 'none');
    assert.equal(got!.n, 150);
  });

  it('keeps a batch re-cut in the same exporter (its commit failed and the group rejoined) in the table once', async () => {
    const cfg = config();
    const exporter = createClickHouseExporter(cfg);
    await exporter.start();
    const batch = batchOf(3, 2000, 100);
    await exporter.deliver(batch, signal);
    // The partition was delivered to since start and the insert answered: only the re-cut says it may be in.
    await exporter.deliver({ ...batch, recut: true }, signal);
    await exporter.deliver(batchOf(3, 2100, 20), signal);
    await exporter.stop();
    const [got] = await rows<{ n: number }>(`SELECT toUInt32(count()) AS n FROM ${cfg.database}.flows`);
    assert.notEqual(exporter.deduplication, 'none');
    assert.equal(got!.n, 120);
  });

  it('talks HTTPS with the CA of clickHouse.caCertPath, or with insecureSkipVerify, and refuses an unknown CA', { skip: server?.https === undefined && 'the server has no HTTPS port' }, async () => {
    const https = server!.https!;
    for (const tls of [{ caCert: true }, { insecureSkipVerify: true }]) {
      const exporter = createClickHouseExporter(config({ databaseURL: https.url, tls, caCertPath: https.caPath }));
      await exporter.start();
      await exporter.deliver(batchOf(0, 0, 10), signal);
      await exporter.stop();
    }
    const untrusted = createClickHouseExporter(config({ databaseURL: https.url, startTimeout: '1s' }));
    await assert.rejects(untrusted.start(), (err: unknown) => isFlowaggError(err, 'FLOWAGG_ERR_CLICKHOUSE_UNAVAILABLE') && /clickHouse\.databaseURL/.test(err.message));
    await untrusted.stop();
  });

  it('uses the credentials of CH_USERNAME and CH_PASSWORD, and names them when the server refuses', { skip: server?.user === undefined && 'the server has no user with a password' }, async () => {
    const good = createClickHouseExporter(config(), { credentials: server!.user! });
    await good.start();
    await good.stop();
    const bad = createClickHouseExporter(config(), { credentials: { username: server!.user!.username, password: 'wrong' } });
    await assert.rejects(bad.start(), (err: unknown) => isFlowaggError(err, 'FLOWAGG_ERR_CLICKHOUSE_CONFIG') && /CH_USERNAME/.test(err.message));
    await bad.stop();
  });

  it('refuses a wrong scheme when made (as the section does); fails at start, naming the key, on an unreachable address and a bad certificate path', async () => {
    assert.throws(() => createClickHouseExporter({ ...config(), databaseURL: 'udp://127.0.0.1:8123' }), (err: unknown) => isFlowaggError(err) && /^clickHouse\.databaseURL .*scheme udp/.test(err.message));
    const unreachable = createClickHouseExporter(config({ databaseURL: `http://127.0.0.1:${await closedPort()}`, startTimeout: '1500ms' }));
    await assert.rejects(unreachable.start(), (err: unknown) => isFlowaggError(err, 'FLOWAGG_ERR_CLICKHOUSE_UNAVAILABLE') && /^clickHouse\.databaseURL .*within 1500 ms/.test(err.message));
    await unreachable.stop();
    assert.throws(() => config({ databaseURL: 'udp://127.0.0.1:8123' }), /the scheme udp is not supported/, 'refused with the section, before any exporter');
    // A start that failed can be tried again (the runner does, with backoff): the CA file is read at each.
    const noCa = createClickHouseExporter(config({ databaseURL: 'https://localhost:8443', tls: { caCert: true }, caCertPath: '/nonexistent/ca.crt' }));
    for (let attempt = 0; attempt < 2; attempt++) {
      await assert.rejects(noCa.start(), (err: unknown) => isFlowaggError(err, 'FLOWAGG_ERR_CLICKHOUSE_CONFIG') && /^clickHouse\.caCertPath \/nonexistent\/ca\.crt/.test(err.message));
    }
    await noCa.stop();
  });

  it('refuses an existing flows table that lacks columns it inserts', async () => {
    const cfg = config({ createSchema: false });
    await admin!.command({ query: `CREATE DATABASE ${cfg.database}` });
    await admin!.command({ query: `CREATE TABLE ${cfg.database}.flows (timeInserted DateTime DEFAULT now(), flowStartSeconds DateTime) ENGINE = MergeTree ORDER BY timeInserted` });
    const exporter = createClickHouseExporter(cfg);
    await assert.rejects(exporter.start(), (err: unknown) => isFlowaggError(err, 'FLOWAGG_ERR_CLICKHOUSE_SCHEMA') && /lacks the columns flowEndSeconds, /.test(err.message));
    await exporter.stop();
  });
});
