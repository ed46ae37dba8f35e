// `flowagg run` as a child process in a directory of its own (its embedded log and flow log under ./data):
// started until it says it is running, with the ports it bound, and stopped as an operator stops it.
import assert from 'node:assert/strict';
import { type FlowaggChild, startFlowagg } from './crash-loop.js';

const RUNNING = 'flowagg run running';

export interface Run {
  readonly child: FlowaggChild;
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
  return { child, tcpPort: started.collectors.tcp!, httpPort: started.http, collectors: started.collectors };
}

export async function stopRun(run: Run): Promise<void> {
  run.child.process.kill('SIGTERM');
  const { code, signal } = await run.child.exited;
  assert.equal(code, 0, `flowagg run exits 0 on SIGTERM (${signal ?? ''}); its log:\n${run.child.stderr().slice(-3000)}`);
}

/** Antrea's /recordmetrics: numRecordsWritten (by ingest into flows.raw), numFlows (held by the processor). */
export async function recordMetrics(run: Run): Promise<{ numRecordsWritten: number; numFlows: number; numRecordsExported: number }> {
  const res = await fetch(`http://127.0.0.1:${run.httpPort}/recordmetrics`);
  return (await res.json()) as { numRecordsWritten: number; numFlows: number; numRecordsExported: number };
}

/** The Prometheus exposition of /metrics, the lines of one metric family prefix. */
export async function metricLines(run: Run, prefix: string): Promise<string[]> {
  const text = await (await fetch(`http://127.0.0.1:${run.httpPort}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith(prefix));
}
