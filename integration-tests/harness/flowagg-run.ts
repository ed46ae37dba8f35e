// `flowagg run` as a child process in a directory of its own (its embedded log and flow log under ./data):
// started until it says it is running, with the ports it bound, and stopped as an operator stops it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type ApiTarget, apiRequest } from '../../lib/apiserver/client.js';
import { apiTargetOf, readLogApi } from '../../lib/log/admin-api.js';
import { type FlowaggChild, startFlowagg } from './crash-loop.js';

export interface Started {
  readonly child: FlowaggChild;
  /** Its working directory. */
  readonly dir: string;
  /** Its embedded log, beside which it publishes its API. */
  readonly logDir: string;
  readonly httpPort: number;
  /** Every collector's bound port: udp, tcp, tls, grpc, netflow (none for a command without ingest). */
  readonly collectors: Readonly<Record<string, number>>;
}

export interface Run extends Started {
  readonly tcpPort: number;
}

/** Every port the OS's choice and short flow timeouts: a run the tests can start side by side and see export soon. */
export const EPHEMERAL_RUN_ENV: Readonly<NodeJS.ProcessEnv> = {
  FLOWAGG_CFG_INGEST_PORT: '0',
  FLOWAGG_CFG_INGEST_NETFLOW_PORT: '0',
  FLOWAGG_CFG_INGEST_GRPC_PORT: '0',
  FLOWAGG_CFG_APISERVER_APIPORT: '0',
  FLOWAGG_CFG_KUBERNETES_ENABLE: 'false',
  FLOWAGG_CFG_ACTIVEFLOWRECORDTIMEOUT: '3s',
  FLOWAGG_CFG_INACTIVEFLOWRECORDTIMEOUT: '4s',
};

interface StartOptions {
  /** Adds FLOWAGG_CFG_ overrides and the like. */
  readonly env?: NodeJS.ProcessEnv;
  /** After the command (e.g. `--config FILE`). */
  readonly args?: readonly string[];
  /** Where its configuration puts the embedded log; the quick start's ./data/log by default. */
  readonly logDir?: string;
}

/** `flowagg <command...>` (`['export', 'flowlog']`, say), started until it logs that it is running. */
export async function startCommand(dir: string, command: readonly string[], opts: StartOptions = {}): Promise<Started> {
  const running = `flowagg ${command.join(' ')} running`;
  const child = startFlowagg([...command, ...(opts.args ?? [])], running, opts.env, dir);
  await child.ready;
  const line = child.stderr().split('\n').find((l) => l.includes(running))!;
  const started = JSON.parse(line) as { collectors?: Record<string, number>; http: number };
  return { child, dir, logDir: opts.logDir ?? join(dir, 'data', 'log'), collectors: started.collectors ?? {}, httpPort: started.http };
}

export async function startRun(dir: string, opts: StartOptions = {}): Promise<Run> {
  const started = await startCommand(dir, ['run'], opts);
  return { ...started, tcpPort: started.collectors.tcp! };
}

export async function stopRun(run: Run): Promise<void> {
  run.child.process.kill('SIGTERM');
  const { code, signal } = await run.child.exited;
  assert.equal(code, 0, `flowagg run exits 0 on SIGTERM (${signal ?? ''}); its log:\n${run.child.stderr().slice(-3000)}`);
}

/**
 * The API a command published beside its log (URL, loopback token, CA): plain HTTP for the quick
 * start, HTTPS with a configuration file.
 */
export function apiOf(run: Pick<Started, 'logDir'>): ApiTarget {
  const api = readLogApi(run.logDir);
  assert.ok(api, `flowagg published no API in ${run.logDir}`);
  return apiTargetOf(api);
}

export interface Readyz {
  readonly ready: boolean;
  readonly checks: Record<string, { ready: boolean; detail?: string }>;
}

/** /readyz of the run, with its HTTP status (no token needed, but HTTPS with a configuration file). */
export async function readyzOf(run: Pick<Started, 'logDir'>): Promise<{ status: number; body: Readyz }> {
  const res = await apiRequest(apiOf(run), '/readyz');
  return { status: res.status, body: res.json as Readyz };
}

/** Antrea's /recordmetrics (app/serve.ts): numRecordsWritten by ingest into flows.raw, numFlows held by the processor. */
export interface RecordMetrics {
  readonly numRecordsReceived: number;
  readonly numRecordsWritten: number;
  readonly numFlows: number;
  readonly numRecordsExported: number;
  /** Only where the processor runs. */
  readonly numRecordsProcessed?: number;
}

export async function recordMetrics(run: Pick<Started, 'logDir'>): Promise<RecordMetrics> {
  return (await apiRequest(apiOf(run), '/recordmetrics')).json as RecordMetrics;
}

/** The Prometheus exposition of /metrics, the lines of one metric family prefix. */
export async function metricLines(run: Pick<Started, 'logDir'>, prefix: string): Promise<string[]> {
  const text = (await apiRequest(apiOf(run), '/metrics')).text;
  return text.split('\n').filter((l) => l.startsWith(prefix));
}
