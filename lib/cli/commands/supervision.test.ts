// `flowagg run` when a service fails after its start: the processor's consumer dies (as a Kafka consumer
// that crashed and will not rejoin). /readyz says so while the supervisor restarts the processor; when
// it keeps failing, the command ends with exit status 1 (Kubernetes then restarts the Pod).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../config/load.js';
import { openLog } from '../../log/index.js';
import { crashingConsumers, type CrashingLog } from '../../log/testing/crashing-consumers.js';
import { serve } from './serve.js';
import { serviceConfigSchema } from './service-config.js';

async function until<T>(what: string, get: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function readyz(port: number): Promise<{ status: number; body: { checks: Record<string, { ready: boolean; detail?: string }> } }> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: res.status, body: (await res.json()) as never };
}

test('flowagg run whose log consumer fails: not ready while the processor restarts, ready again after, exit status 1 once it keeps failing', async (t) => {
  const config = loadConfig(serviceConfigSchema, {
    env: {},
    overrides: {
      aggregatorTransportProtocol: ['tcp'], 'ingest.host': '127.0.0.1', 'ingest.port': 0, 'apiServer.apiPort': 0, 'apiServer.bindAddress': '127.0.0.1',
      'log.embedded.dir': mkdtempSync(join(tmpdir(), 'flowagg-supervision-')), 'log.embedded.fsync.policy': 'interval',
    },
  });
  let log: CrashingLog | undefined;
  let http: number | undefined;
  const stop = new AbortController();
  const running = serve(config, {
    command: 'run', processor: true, signal: stop.signal, onStarted: (p) => (http = p.http),
    openLog: async (c) => (log = crashingConsumers(await openLog(c))),
    supervision: { backoff: { initialMs: 400, maxMs: 400, jitter: 0 }, maxRestarts: 1, windowMs: 60_000 },
  });
  t.after(async () => {
    stop.abort();
    await running;
  });
  const port = await until('the services to start', async () => http);
  assert.equal((await readyz(port)).status, 200);

  assert.equal(await log!.crash(config.processor.groupId), 1);
  const restarting = await readyz(port);
  assert.equal(restarting.status, 503);
  assert.match(restarting.body.checks.processor!.detail!, /processor failed \(the consumer of group flowagg-processor crashed \(injected\)\); restart 1 of 1/);
  assert.equal(restarting.body.checks.ingest!.ready, true, 'only the failed service is not ready');
  await until('the restarted processor to be ready', async () => ((await readyz(port)).status === 200 ? true : undefined));

  assert.equal(await log!.crash(config.processor.groupId), 1, 'the restarted processor has a consumer of its own');
  assert.equal(await running, 1);
});
