// `flowagg run` as a child process in a directory of its own (its embedded log and flow log under ./data):
// started until it says it is running, with the ports it bound, and stopped as an operator stops it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type ApiTarget, apiRequest } from '../../lib/apiserver/client.js';
import { apiTargetOf, readLogApi } from '../../lib/log/admin-api.js';
import { type FlowaggChild, startFlowagg } from './crash-loop.js';

const RUNNING = 'flowagg run running';

export interface Run {
  readonly child: FlowaggChild;
  /** Its working directory: the embedded log is in ./data/log, where it publishes its API. */
  readonly dir: string;
  readonly tcpPort: number;
  readonly httpPort: number;
  /** Every collector's bound port: udp, tcp, tls, grpc, netflow. */
  readonly collectors: Readonly<Record<string, number>>;
}

/** `args` after `run` (e.g. `--config FILE`); `env` adds FLOWAGG_CFG_ overrides and the like. */
export async function startRun(dir: string, opts: { env?: NodeJS.ProcessEnv; args?: readonly string[] } = {}): Promise<Run> {
  const child = startFlowagg(['run', ...(opts.args ?? [])], RUNNING, opts.env, dir);
  await child.ready;
  const line = child.stderr().split('\n').find((l) => l.includes(RUNNING))!;
  const started = JSON.parse(line) as { collectors: Record<string, number>; http: number };
  return { child, dir, tcpPort: started.collectors.tcp!, httpPort: started.http, collectors: started.collectors };
}

export async function stopRun(run: Run): Promise<void> {
  run.child.process.kill('SIGTERM');
  const { code, signal } = await run.child.exited;
  assert.equal(code, 0, `flowagg run exits 0 on SIGTERM (${signal ?? ''}); its log:\n${run.child.stderr().slice(-3000)}`);
}

/**
 * The run's API as it published it beside its log (URL, loopback token, CA): plain HTTP for the quick
 * start, HTTPS with a configuration file.
 */
export function apiOf(run: Run): ApiTarget {
  const api = readLogApi(join(run.dir, 'data', 'log'));
  assert.ok(api, `flowagg run published no API in ${run.dir}/data/log`);
  return apiTargetOf(api);
}

export interface Readyz {
  readonly ready: boolean;
  readonly checks: Record<string, { ready: boolean; detail?: string }>;
}

/** /readyz of the run, with its HTTP status (no token needed, but HTTPS with a configuration file). */
export async function readyzOf(run: Run): Promise<{ status: number; body: Readyz }> {
  const res = await apiRequest(apiOf(run), '/readyz');
  return { status: res.status, body: res.json as Readyz };
}

/** Antrea's /recordmetrics: numRecordsWritten (by ingest into flows.raw), numFlows (held by the processor). */
export async function recordMetrics(run: Run): Promise<{ numRecordsWritten: number; numFlows: number; numRecordsExported: number }> {
  return (await apiRequest(apiOf(run), '/recordmetrics')).json as { numRecordsWritten: number; numFlows: number; numRecordsExported: number };
}

/** The Prometheus exposition of /metrics, the lines of one metric family prefix. */
export async function metricLines(run: Run, prefix: string): Promise<string[]> {
  const text = (await apiRequest(apiOf(run), '/metrics')).text;
  return text.split('\n').filter((l) => l.startsWith(prefix));
}
