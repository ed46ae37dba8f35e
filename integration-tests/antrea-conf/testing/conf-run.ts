// Antrea's chart-rendered flow-aggregator.conf files (lib/config/testdata) given to flowagg as they are:
// `flowagg config check FILE`, and `flowagg run --config FILE` in a directory of its own, fed by
// `flowagg simulate` as Antrea Agents over IPFIX/TLS, the chart's default transport.
//
// The files are never edited. What differs between one deployment and the next comes from the
// environment, as an operator's would: free ports instead of 4739, 14739 and 10348 (tests run side by
// side), and the addresses of the test's own destinations instead of the cluster's Service names.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { type Run, readyzOf, startRun, stopRun } from '../../harness/flowagg-run.js';
import { runTool } from '../../harness/tools.js';

const CLI = join(import.meta.dirname, '../../../bin/flowagg.js');
const TESTDATA = join(import.meta.dirname, '../../../lib/config/testdata');

export type AntreaConf = 'flow-aggregator' | 'proxy-ipfix' | 'clickhouse' | 's3' | 'flow-logger' | 'tls-ipfix-tcp';

export const confFile = (name: AntreaConf): string => join(TESTDATA, `antrea-${name}.conf`);

const DEPLOYMENT_ENV = {
  FLOWAGG_CFG_INGEST_HOST: '127.0.0.1',
  FLOWAGG_CFG_INGEST_PORT: '0',
  FLOWAGG_CFG_INGEST_GRPC_PORT: '0',
  FLOWAGG_CFG_APISERVER_APIPORT: '0',
  FLOWAGG_CFG_APISERVER_BINDADDRESS: '127.0.0.1',
  FLOWAGG_CFG_KUBERNETES_ENABLE: 'false',
};

/** `flowagg config check FILE`: valid, no warning; the one notice is recordBufferSize's (accepted, unused). */
export async function assertConfigCheckPasses(file: string): Promise<void> {
  const check = await runTool(process.execPath, [CLI, 'config', 'check', file], { timeoutMs: 60_000, allowFailure: true });
  assert.equal(check.exitCode, 0, `${file}: ${check.stdout}${check.stderr}`);
  assert.match(check.stdout, /^notice: recordBufferSize \([^)]*antrea-[a-z0-9-]+\.conf:\d+\): accepted as Antrea's key and unused[^\n]*\n[^\n]*antrea-[a-z0-9-]+\.conf: valid \(0 errors, 0 warnings, 1 notices\)\n$/);
}

export interface ConfRun {
  readonly run: Run;
  /** Its working directory: ./data/log, and ./data/tls with the certificates it issued for the Agents. */
  readonly dir: string;
}

/** The warnings and errors flowagg logged (pino levels 40 and 50), for "runs unchanged". */
export function problemsLogged(run: Run): string[] {
  return run.child
    .stderr()
    .split('\n')
    .filter((l) => l.startsWith('{') && (JSON.parse(l) as { level: number }).level >= 40);
}

/** `flowagg run --config FILE` until it runs, with `env` on top of the deployment's; stopped when the test ends. */
export async function runConf(t: TestContext, file: string, env: NodeJS.ProcessEnv = {}): Promise<ConfRun> {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-antrea-conf-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const run = await startRun(dir, { args: ['--config', file], env: { ...DEPLOYMENT_ENV, ...env } });
  t.after(() => {
    if (run.child.process.exitCode === null) run.child.process.kill('SIGKILL');
  });
  assert.ok(run.collectors.tls !== undefined, 'the IPFIX collector on TLS, the default of Antrea\'s chart');
  const ready = await readyzOf(run);
  assert.equal(ready.status, 200, JSON.stringify(ready.body));
  return { run, dir };
}

/** Stops it with SIGTERM (exit 0) and checks that it logged no warning or error while it ran. */
export async function stopConf({ run }: ConfRun): Promise<void> {
  await stopRun(run);
  assert.deepEqual(problemsLogged(run), [], 'no warning, no error');
}

/** Two Antrea Agents for a few seconds over IPFIX/TLS with the client certificate flowagg issued; the records sent. */
export async function simulateAgents(c: ConfRun, signal?: AbortSignal): Promise<number> {
  const sim = await runTool(
    process.execPath,
    [CLI, 'simulate', '--transport', 'tls', '--target', `127.0.0.1:${c.run.collectors.tls}`, '--tls-dir', join(c.dir, 'data', 'tls'),
      '--nodes', '2', '--flows', '40', '--duration', '3s', '--export-interval', '1s', '--records-per-flow', '2', '-q', '-o', 'json'],
    { cwd: c.dir, timeoutMs: 120_000, ...(signal && { signal }) },
  );
  const report = JSON.parse(sim.stdout) as { records: { sent: number } };
  assert.ok(report.records.sent > 0, 'the Agents sent records');
  return report.records.sent;
}
