// The embedded log's shape: one `flowagg run` (ingest, the processor and the three exporters in one process,
// on the embedded log in a directory of its own), as a single machine runs it, with the chaos run's
// configuration (config.ts) and fixed ports, so that a run started again after a kill listens where the
// Agents reconnect (TCP and UDP on one port, gRPC on another). The flow explorer is off: nobody looks.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { topicsSchema } from '../../../lib/log/topics.js';
import type { ClickHouseForTests } from '../../harness/clickhouse.js';
import { freePort } from '../../harness/ports.js';
import { type Topics, configYaml } from './config.js';
import { type Pod, servicePod } from './pod.js';
import { stopProblems } from './pod-report.js';
import type { ChaosMode } from './profile.js';
import type { ServiceName } from './schedule.js';
import { type Sinks, startSinks, stopSinks } from './sinks.js';

export interface EmbeddedDeployment extends Sinks {
  readonly mode: ChaosMode;
  readonly dir: string;
  /** The embedded log's directory, which `flowagg run` locks while it runs. */
  readonly logDir: string;
  readonly topics: Topics;
  readonly processorGroup: string;
  /** Where the Agents send: IPFIX over TCP and UDP, Antrea's gRPC. */
  readonly ports: { readonly ipfix: number; readonly grpc: number };
  readonly run: Pod;
  readonly pods: ReadonlyMap<ServiceName, Pod>;
  pod(name: ServiceName): Pod;
}

/** Builds the deployment of one mode (nothing started but the destinations). */
export async function prepareEmbedded(o: { mode: ChaosMode; dir: string; clickhouse: ClickHouseForTests; tlsDir: string; runId: string }): Promise<EmbeddedDeployment> {
  const name = `embedded-${o.mode.toLowerCase()}-${o.runId}`;
  const dir = join(o.dir, name);
  const logDir = join(dir, 'log');
  await mkdir(dir, { recursive: true });
  const sinks = await startSinks({ name, dir, clickhouse: o.clickhouse });
  const topics: Topics = topicsSchema.parse({});
  const processorGroup = `flowagg-processor-${name}`;
  const config = join(dir, 'flowagg.yaml');
  const backend = `  backend: embedded\n  embedded:\n    dir: ${logDir}`;
  await writeFile(config, configYaml({ mode: o.mode, backend, topics, processorGroup, tlsDir: o.tlsDir, sinks }));
  const ports = { ipfix: await freePort(), grpc: await freePort() };
  // The processor on two worker threads and each exporter on one, so that the kills land on a run whose
  // partitions live on threads (auto starts none on CI's two cores).
  const env = { FLOWAGG_CFG_INGEST_PORT: String(ports.ipfix), FLOWAGG_CFG_INGEST_GRPC_PORT: String(ports.grpc), FLOWAGG_CFG_EXPLORER_ENABLE: 'false', FLOWAGG_CFG_PROCESSOR_THREADS: '2', FLOWAGG_CFG_EXPORTERS_THREADS: 'true' };
  const run = await servicePod({ name: 'run', dir, argv: ['run', '--config', config], readyMessage: 'flowagg run running', env });
  const pods = new Map<ServiceName, Pod>([['run', run]]);
  return { ...sinks, mode: o.mode, dir, logDir, topics, processorGroup, ports, run, pods, pod: () => run };
}

/** SIGTERM to `flowagg run`; resolves with what went wrong (nothing: it exited 0). */
export async function stopRun(d: EmbeddedDeployment): Promise<string[]> {
  return stopProblems('flowagg run', await d.run.stop());
}

/** `flowagg run` stopped, then the destinations. */
export async function stopEmbedded(d: EmbeddedDeployment): Promise<string[]> {
  const problems = await stopRun(d);
  await stopSinks(d);
  return problems;
}
