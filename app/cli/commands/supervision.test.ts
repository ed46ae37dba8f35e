// `flowagg run` when a service fails after its start: the consumer of a service dies (as a Kafka consumer
// that crashed and will not rejoin). /readyz says so while the supervisor restarts that service; when it
// keeps failing, the command ends with exit status 1 (Kubernetes then restarts the Pod).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../../lib/config/load.js';
import { openLog } from '../../../lib/log/index.js';
import { crashingConsumers, type CrashingLog } from '../../../lib/log/testing/crashing-consumers.js';
import { until } from '../../../lib/testing/until.js';
import { serve } from '../../serve.js';
import { serviceConfigSchema } from '../../service-config.js';

interface Readyz {
  readonly status: number;
  readonly checks: Record<string, { ready: boolean; detail?: string }>;
}

async function readyz(port: number): Promise<Readyz> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: res.status, checks: ((await res.json()) as Readyz).checks };
}

const SERVICES = [
  { check: 'processor', group: 'flowagg-processor', where: '' },
  // The runner's consumer of flows.processed and its consumer of export.batches.
  { check: 'export.flowlog', group: 'flowagg-export-flowlog', where: '' },
  // The same runner on a worker thread: its consumers are the thread's, on this thread's log.
  { check: 'export.flowlog', group: 'flowagg-export-flowlog', where: ' on its thread', overrides: { 'exporters.threads': true } },
  // ingest's consumer of ipfix.templates (UDP), one group per replica.
  { check: 'ingest', group: 'flowagg-ingest-templates-', where: '' },
];

for (const { check, group, where, overrides } of SERVICES) {
  test(`flowagg run whose ${check}${where} consumer fails: not ready while it restarts, ready again after, exit status 1 once it keeps failing`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'flowagg-supervision-'));
    const config = loadConfig(serviceConfigSchema, {
      env: {},
      overrides: {
        aggregatorTransportProtocol: ['udp'], 'ingest.host': '127.0.0.1', 'ingest.port': 0, 'apiServer.apiPort': 0, 'apiServer.protocol': 'http',
        'log.embedded.dir': join(dir, 'log'), 'log.embedded.fsync.policy': 'interval',
        'flowLogger.enable': true, 'flowLogger.path': join(dir, 'flows.log'),
        'supervision.initialBackoff': 400, 'supervision.maxBackoff': 400, 'supervision.maxRestarts': 1,
        ...overrides,
      },
    });
    let log: CrashingLog | undefined;
    let started: (port: number) => void = () => {};
    const http = new Promise<number>((resolve) => (started = resolve));
    const stop = new AbortController();
    const running = serve(config, {
      command: 'run', processor: true, exporters: 'enabled', signal: stop.signal, onStarted: (p) => started(p.http),
      openLog: async (c) => (log = crashingConsumers(await openLog(c))),
    });
    t.after(async () => {
      stop.abort();
      await running;
    });
    const port = await http;
    assert.equal((await readyz(port)).status, 200);

    assert.ok((await log!.crash(group)) >= 1);
    // The processor hears of its consumer's failure from another thread (processor.threads): soon, not at once.
    const restarting = await until('/readyz to answer 503 while the service restarts', async () => {
      const r = await readyz(port);
      return r.status === 503 && r;
    }, { timeoutMs: 2000, intervalMs: 20 });
    assert.match(restarting.checks[check]!.detail!, /failed \(the consumer of group .+ crashed \(injected\)\); restart 1 of 1/);
    assert.deepEqual(Object.entries(restarting.checks).filter(([, c]) => !c.ready).map(([name]) => name), [check], 'only the failed service is not ready');
    await until('/readyz to answer 200 after the restart', async () => (await readyz(port)).status === 200);

    assert.ok((await log!.crash(group)) >= 1, 'the restarted service has consumers of its own');
    assert.equal(await running, 1);
  });
}
