import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiRequest } from '../../../lib/apiserver/client.js';
import { freePort } from '../../../integration-tests/harness/ports.js';
import { FakeKubeApiServer, kubeConfigFor } from '../../../lib/k8s/testing/fake-api-server.js';
import { until } from '../../../lib/testing/until.js';
import { QUICK_START_CONFIG } from './run.js';
import { loadServiceConfig } from '../../serve.js';

const CLI = join(import.meta.dirname, '../../../bin/flowagg.js');

const args = (values: Record<string, string> = {}) => ({ values, positionals: [] });

test('flowagg run without a configuration file writes the flow log as JSON lines under ./data; an environment variable still turns it off', () => {
  const c = loadServiceConfig(args(), {}, QUICK_START_CONFIG);
  assert.deepEqual([c.flowLogger.enable, c.flowLogger.path, c.flowLogger.recordFormat], [true, 'data/flows.log', 'JSON']);
  assert.deepEqual(c.aggregatorTransportProtocol, ['udp', 'tcp'], 'IPFIX collectors any exporter reaches without certificates');
  assert.equal(c.log.embedded.dir, './data/log', 'beside the log');
  assert.deepEqual(c.ingest.netflow, { enabled: true, port: 2055 }, 'NetFlow on 2055 in the quick start');
  process.env.FLOWAGG_CFG_FLOWLOGGER_ENABLE = 'false';
  try {
    assert.equal(loadServiceConfig(args(), {}, QUICK_START_CONFIG).flowLogger.enable, false);
  } finally {
    delete process.env.FLOWAGG_CFG_FLOWLOGGER_ENABLE;
  }
});

test('flowagg run with a configuration file keeps Antrea\'s defaults: the flow log off (CSV), the IPFIX collector on TLS', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'flowagg-run-cli-')), 'flow-aggregator.conf');
  writeFileSync(file, 'activeFlowRecordTimeout: 60s\n');
  const c = loadServiceConfig(args({ config: file }), {}, QUICK_START_CONFIG);
  assert.deepEqual([c.flowLogger.enable, c.flowLogger.recordFormat], [false, 'CSV']);
  assert.deepEqual(c.aggregatorTransportProtocol, ['tls']);
  assert.equal(c.ingest.netflow.enabled, false, 'NetFlow off unless the file enables it');
});

test('flowagg run with Kubernetes metadata on exits 0 within 10 s of SIGTERM: stopping leaves no handle open', async (t) => {
  // The watches open only after SIGTERM: a watch that answers after its informer stopped must be closed too.
  let stop!: () => void;
  const stopping = new Promise<void>((resolve) => (stop = resolve));
  const fake = await FakeKubeApiServer.start();
  // Held watches are let go first, or the server's stop would wait on them when the test failed early.
  t.after(() => {
    stop();
    return fake.stop();
  });
  fake.intercept(async (req) => {
    if (req.query.watch !== 'true') return undefined;
    await stopping;
    await sleep(500);
    return undefined;
  });
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-run-k8s-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, kubeConfigFor(fake).exportConfig());
  const apiPort = await freePort();
  const config = join(dir, 'flowagg.yaml');
  writeFileSync(config, [
    // TCP: with a configuration file the collector is TLS by default, whose CA Secret this fake API lacks.
    'aggregatorTransportProtocol: TCP',
    'kubernetes:', '  enable: true', `  kubeconfig: ${kubeconfig}`,
    'apiServer:', `  apiPort: ${apiPort}`,
    'ingest:', '  host: 127.0.0.1', '  port: 0', '  grpc:', '    enabled: false',
    'log:', '  embedded:', `    dir: ${join(dir, 'log')}`, '',
  ].join('\n'));
  const child = spawn(process.execPath, [CLI, 'run', '--config', config], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.after(() => child.kill('SIGKILL'));
  // HTTPS (a configuration file: Antrea's defaults); /readyz needs no token, the certificate is self-signed.
  // How soon it is ready is not what is tested (a loaded CI machine took over 30 s): how soon it stops is.
  await until('flowagg run to be ready', async () => (await apiRequest({ url: `https://127.0.0.1:${apiPort}`, insecure: true }, '/readyz').catch(() => undefined))?.status === 200, { timeoutMs: 120_000 });
  stop();
  child.kill('SIGTERM');
  const code = await Promise.race([exited, sleep(10_000).then(() => 'still running')]);
  assert.equal(code, 0, `exit status 10 s after SIGTERM (stderr: ${stderr.slice(-2000)})`);
});
