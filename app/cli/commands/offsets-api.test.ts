// `flowagg offsets` while `flowagg run` holds the embedded log: the command goes through the running
// process's log API instead of failing with FLOWAGG_ERR_LOG_LOCKED.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../../lib/config/load.js';
import { apiRequest } from '../../../lib/apiserver/client.js';
import { LOG_API_PATH, apiTargetOf, readLogApi } from '../../../lib/log/admin-api.js';
import { openEmbeddedLog } from '../../../lib/log/embedded/index.js';
import { parseCommandArgs } from '../command.js';
import { offsetsCommand, runOffsets } from './offsets.js';
import { serve } from '../../serve.js';
import { serviceConfigSchema } from '../../service-config.js';
import { until } from '../../../lib/testing/until.js';

test('offsets list and reset reach the log through the API of the process holding it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-offsets-api-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const setup = await openEmbeddedLog({ dir });
  await setup.admin().createTopics([{ topic: 'flows.raw', partitions: 4 }]);
  await setup.producer().send('flows.raw', Array.from({ length: 8 }, (_, i) => ({ key: null, value: Buffer.from(`r${i}`), partition: i % 4 })));
  const tp = setup.transactionalProducer('setup');
  const txn = await tp.begin();
  await txn.sendOffsets('exporter-flowlog', [{ topic: 'flows.raw', partition: 0, offset: 2 }]);
  await txn.commit();
  await tp.close();
  await setup.close();

  // No clock ticks (ingest.clockTick 0): flows.raw holds only the records written above.
  const config = loadConfig(serviceConfigSchema, { env: {}, overrides: { 'log.embedded.dir': dir, 'ingest.port': 0, 'ingest.grpc.port': 0, 'ingest.clockTick': 0, 'apiServer.apiPort': 0, 'apiServer.bindAddress': '127.0.0.1', 'apiServer.loopbackTokenFile': join(dir, 'token') } });
  const stop = new AbortController();
  const running = serve(config, { command: 'run', signal: stop.signal });
  t.after(async () => {
    stop.abort();
    await running;
  });
  await until('the running process to publish its log API', () => readLogApi(dir) !== undefined);

  const run = async (...argv: string[]) => {
    let out = '';
    const code = await runOffsets(parseCommandArgs(offsetsCommand, [...argv, '--log-dir', dir]), (s) => void (out += s));
    return { code, out };
  };
  const listed = await run('list', '-o', 'json');
  assert.equal(listed.code, 0);
  const groups = (JSON.parse(listed.out) as { groups: { groupId: string; partitions: { partition: number; committed: number | null; high: number }[] }[] }).groups;
  const flowlog = groups.find((g) => g.groupId === 'exporter-flowlog')!;
  assert.deepEqual(flowlog.partitions.find((p) => p.partition === 0), { topic: 'flows.raw', partition: 0, committed: 2, high: 2, lag: 0 });

  const reset = await run('reset', '--group', 'exporter-flowlog', '--topic', 'flows.raw', '--to-earliest', '-o', 'json');
  assert.equal(reset.code, 0, reset.out);
  const after = (JSON.parse(reset.out) as { partitions: { partition: number; offset: number }[] }).partitions;
  assert.deepEqual(after.map((p) => p.offset), [0, 0, 0, 0]);

  // The API is only for whoever can read the log directory's .api.json: HTTPS, verified with the CA it names.
  const api = readLogApi(dir)!;
  assert.match(api.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const post = (token: string, body: unknown) => apiRequest({ ...apiTargetOf(api), token }, LOG_API_PATH, { method: 'POST', body });
  assert.equal((await post('nope', { method: 'listGroups', args: [] })).status, 401);
  assert.equal((await post(api.token, 'x'.repeat(100_000))).status, 413);
  assert.equal((await post(api.token, { method: 'createTopics', args: [] })).status, 400);

  stop.abort();
  await running;
  assert.ok(!existsSync(join(dir, '.api.json')), 'the discovery file goes with the process');
  const direct = await run('list', '--group', 'exporter-flowlog', '-o', 'json');
  assert.equal(direct.code, 0, 'with the process gone, the log is opened directly');
});
