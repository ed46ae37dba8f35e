// The ClickHouse image the exporter tests run against: it starts healthy, takes a MergeTree table and
// rows over HTTP from the host, sums them back, keeps its password user apart from wrong passwords, and
// serves HTTPS with the certificate the harness handed it.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { test } from 'node:test';
import { CLICKHOUSE_PASSWORD_USER, startClickHouseContainer } from '../harness/clickhouse-container.js';
import { containersForTests } from '../harness/containers.js';

async function query(url: string, sql: string, body?: string, user?: { username: string; password: string }): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = user ? { authorization: `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}` } : {};
  const res = await fetch(`${url}/?query=${encodeURIComponent(sql)}`, { method: 'POST', headers, ...(body !== undefined && { body }) });
  return { status: res.status, text: (await res.text()).trim() };
}

test('the ClickHouse image stores rows sent from the host and authenticates its users', async (t) => {
  const runtime = await containersForTests();
  if (runtime.skip) return t.skip(runtime.skip);
  const clickhouse = await startClickHouseContainer((line) => console.log(`[clickhouse-image] ${line}`));
  t.after(() => clickhouse.stop());

  assert.equal((await query(clickhouse.url, 'SELECT version()')).text, '18.16.1');
  await query(clickhouse.url, 'CREATE TABLE flows (flowStartSeconds DateTime, octetDeltaCount UInt64, sourceIP String) ENGINE = MergeTree ORDER BY flowStartSeconds');
  const rows = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ flowStartSeconds: 1_700_000_000 + i, octetDeltaCount: i * 3, sourceIP: `10.0.${i >> 8}.${i & 255}` }));
  const insert = await query(clickhouse.url, 'INSERT INTO flows FORMAT JSONEachRow', rows.join('\n'));
  assert.equal(insert.status, 200, insert.text);
  assert.equal((await query(clickhouse.url, 'SELECT count(), sum(octetDeltaCount), uniqExact(sourceIP) FROM flows')).text, `1000\t${3 * 999 * 500}\t1000`);

  assert.equal((await query(clickhouse.url, 'SELECT count() FROM flows', undefined, CLICKHOUSE_PASSWORD_USER)).text, '1000');
  const refused = await query(clickhouse.url, 'SELECT 1', undefined, { username: CLICKHOUSE_PASSWORD_USER.username, password: 'wrong' });
  assert.notEqual(refused.status, 200);
  assert.match(refused.text, /Wrong password for user flowagg/);

  assert.ok(clickhouse.https, 'a local engine publishes the HTTPS port');
  const ca = await readFile(clickhouse.https.caPath);
  assert.equal(await httpsGet(`${clickhouse.https.url}/?query=${encodeURIComponent('SELECT count() FROM flows')}`, ca), '1000');
  await assert.rejects(httpsGet(`${clickhouse.https.url}/ping`), /self-signed|unable to verify|self signed/);
});

/** GET over HTTPS trusting only `ca` (Node's default roots without it). */
function httpsGet(url: string, ca?: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    request(url, { ...(ca && { ca }) }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve(text.trim()));
    }).on('error', reject).end();
  });
}
