// The product image as an operator runs it: `flowagg run` in a container (its entrypoint: tini, then the
// compiled program under node, as an unprivileged user), its IPFIX and HTTP ports published on the host,
// its data directory a host folder. softflowd on the host exports to the published TCP port; the
// image's health check turns the container healthy; /recordmetrics and /metrics are read from the host;
// `docker stop` (SIGTERM, then SIGKILL after 10 s) ends it with status 0 well before the SIGKILL; then
// the log it leaves is opened from the host and holds every record softflowd sent, with its values.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { containersForTests, hostOf, localContainer } from '../harness/containers.js';
import { sortRecords } from '../harness/flow-view.js';
import { runSoftflowd } from '../harness/softflowd.js';
import { expectedExport, writeTrafficPcap } from '../harness/softflowd-export.js';
import { requireTools, SOFTFLOWD } from '../harness/tools.js';
import { conversationMix, renderTraffic } from '../harness/traffic.js';
import { readFlowRecords, softflowdView } from '../../ingest/testing/fakes.js';
import { logConfigSchema } from '../../lib/log/config.js';
import { openLog } from '../../lib/log/index.js';
import { untilHolds } from '../../lib/testing/until.js';

const docker = promisify(execFile);
const log = (line: string) => console.log(`[product-image] ${line}`);

async function json(url: string): Promise<Record<string, number>> {
  return (await (await fetch(url)).json()) as Record<string, number>;
}

test('the flowagg image collects softflowd IPFIX, reports it over HTTP, and stops on SIGTERM with status 0', async (t) => {
  const runtime = await containersForTests();
  if (runtime.skip) return t.skip(runtime.skip);
  if (!requireTools(t, SOFTFLOWD)) return;

  const work = await mkdtemp(join(tmpdir(), 'flowagg-image-'));
  t.after(() => rm(work, { recursive: true, force: true }));
  const data = join(work, 'data');
  await mkdir(data);
  await chmod(data, 0o777); // the image's user (uid 10001) writes the log there

  const { container: definition, Wait } = await localContainer('flowagg', log);
  const container = await definition
    .withExposedPorts(4739, 10348)
    // The quick start (no configuration file) serves plain HTTP on loopback, which a published port does
    // not reach: bound to the container's every address, as docs/containers.md says to.
    .withEnvironment({ FLOWAGG_CFG_APISERVER_BINDADDRESS: '0.0.0.0' })
    .withBindMounts([{ source: data, target: '/var/lib/flowagg/data', mode: 'rw' }])
    .withWaitStrategy(Wait.forHealthCheck())
    .start();
  let stopped = false;
  t.after(async () => {
    if (!stopped) await container.stop();
  });
  const host = hostOf(container);
  const http = `http://${host}:${container.getMappedPort(10348)}`;

  const traffic = renderTraffic(conversationMix({ count: 120, seed: 23 }));
  const pcapPath = await writeTrafficPcap(traffic, work);
  const softflowd = await runSoftflowd({
    pcapPath, collector: { address: host, port: container.getMappedPort(4739) }, transport: 'tcp', timeFormat: 'milli', signal: t.signal,
  });
  const sent = softflowd.stats.recordsExported;
  assert.ok(sent > 100, `softflowd exported only ${sent} records`);
  assert.equal(softflowd.stats.sendFailures, 0);

  const metrics = await untilHolds('ingest to write every record softflowd exported', () => json(`${http}/recordmetrics`), (m) => m.numRecordsWritten! >= sent, { timeoutMs: 60_000, intervalMs: 200 });
  assert.equal(metrics.numRecordsReceived, sent);
  assert.equal(metrics.numRecordsWritten, sent);
  const prometheus = await (await fetch(`${http}/metrics`)).text();
  assert.match(prometheus, new RegExp(`^flowagg_ingest_written_records_total ${sent}$`, 'm'));
  assert.equal((await fetch(`${http}/healthz`)).status, 200);

  const started = Date.now();
  const stoppedContainer = await container.stop({ timeout: 10_000, remove: false });
  stopped = true;
  const seconds = (Date.now() - started) / 1000;
  const { stdout: state } = await docker('docker', ['inspect', '--format', '{{.State.ExitCode}} {{.State.OOMKilled}}', stoppedContainer.getId()]);
  const { stdout: logs, stderr: errLogs } = await docker('docker', ['logs', stoppedContainer.getId()]);
  await docker('docker', ['rm', '--volumes', stoppedContainer.getId()]);
  assert.equal(state.trim(), '0 false', `exit status after docker stop; logs:\n${logs}${errLogs}`);
  assert.ok(seconds < 9, `docker stop took ${seconds.toFixed(1)} s: SIGTERM did not end the process before the 10 s SIGKILL`);
  assert.match(errLogs, /"signal":"SIGTERM","msg":"stopping"/);

  const stored = await openLog(logConfigSchema.parse({ embedded: { dir: join(data, 'log') } }));
  try {
    const records = (await readFlowRecords(stored)).map((r) => r.record);
    assert.deepEqual(sortRecords(records.map(softflowdView)), sortRecords(expectedExport(traffic, { bidirectional: false, timeFormat: 'milli' })));
  } finally {
    await stored.close();
  }
});
