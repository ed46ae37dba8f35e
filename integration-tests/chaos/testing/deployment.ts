// The deployed shape over Kafka, each service a process of its own as the Helm chart deploys them: two
// `flowagg ingest` replicas (each reachable for TCP and gRPC, both behind one UDP address), two `flowagg
// process` (a third comes and goes with rebalances), and `flowagg export` for IPFIX (to a collector process),
// ClickHouse (through a proxy the test cuts) and the flow log. One configuration file for all, as a
// ConfigMap; ports per process through FLOWAGG_CFG_ variables. Topics, groups and the ClickHouse database
// carry the run's name, so that the two modes share a broker without sharing anything else.
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ClickHouseForTests } from '../../harness/clickhouse.js';
import { freePort } from '../../harness/ports.js';
import { type Topics, configYaml } from './config.js';
import { type Pod, servicePod } from './pod.js';
import { stopProblems } from './pod-report.js';
import type { ChaosMode } from './profile.js';
import type { ServiceName } from './schedule.js';
import { type Sinks, startSinks, stopSinks } from './sinks.js';
import { UdpBalancer } from './udp-balancer.js';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'flowagg.js');

export { PROCESSED_PARTITIONS, RAW_PARTITIONS, type Topics } from './config.js';

export interface IngestPorts {
  readonly ipfix: number;
  readonly grpc: number;
  readonly http: number;
}

export interface Deployment extends Sinks {
  readonly mode: ChaosMode;
  readonly dir: string;
  readonly topics: Topics;
  readonly processorGroup: string;
  readonly tlsDir: string;
  readonly ingest: readonly [IngestPorts, IngestPorts];
  readonly pods: ReadonlyMap<ServiceName, Pod>;
  balancer: UdpBalancer | undefined;
  pod(name: ServiceName): Pod;
}

/** The certificates both ingest replicas serve and the gRPC Agents verify, issued once for the run. */
export async function issueCertificates(dir: string): Promise<string> {
  const tlsDir = join(dir, 'tls');
  await run(process.execPath, [BIN, 'certs', 'issue', '--dir', tlsDir]);
  return tlsDir;
}

/** Builds the deployment of one mode (nothing started but the destinations). */
export async function prepareDeployment(o: { mode: ChaosMode; dir: string; brokers: string; clickhouse: ClickHouseForTests; tlsDir: string; runId: string }): Promise<Deployment> {
  const name = `${o.mode.toLowerCase()}-${o.runId}`;
  const dir = join(o.dir, name);
  await mkdir(dir, { recursive: true });
  const topics: Topics = {
    flowsRaw: `chaos.${name}.flows.raw`, flowsProcessed: `chaos.${name}.flows.processed`, processorState: `chaos.${name}.processor.state`,
    templates: `chaos.${name}.ipfix.templates`, exportBatches: `chaos.${name}.exporter.batches`,
  };
  const sinks = await startSinks({ name, dir, clickhouse: o.clickhouse });
  const processorGroup = `flowagg-processor-${name}`;
  const config = join(dir, 'flowagg.yaml');
  const backend = `  backend: kafka\n  kafka:\n    brokers: [${o.brokers}]\n    sessionTimeout: 10s`;
  await writeFile(config, configYaml({ mode: o.mode, backend, topics, processorGroup, tlsDir: o.tlsDir, sinks }));
  const ingest = [
    { ipfix: await freePort(), grpc: await freePort(), http: await freePort() },
    { ipfix: await freePort(), grpc: await freePort(), http: await freePort() },
  ] as const;
  const pods = new Map<ServiceName, Pod>();
  const add = async (service: ServiceName, argv: string[], readyMessage: string, env: NodeJS.ProcessEnv = {}, http?: number) => {
    pods.set(service, await servicePod({ name: service, dir, argv: [...argv, '--config', config], readyMessage, env, httpPort: http }));
  };
  for (const [i, ports] of ingest.entries()) {
    await add(`ingest-${i + 1}` as ServiceName, ['ingest'], 'flowagg ingest running', { FLOWAGG_CFG_INGEST_PORT: String(ports.ipfix), FLOWAGG_CFG_INGEST_GRPC_PORT: String(ports.grpc) }, ports.http);
  }
  for (const p of ['process-1', 'process-2', 'process-3'] as const) await add(p, ['process'], 'flowagg process running');
  for (const kind of ['ipfix', 'clickhouse', 'flowlog'] as const) await add(`export-${kind}`, ['export', kind], `flowagg export ${kind} running`);
  return {
    ...sinks, mode: o.mode, dir, topics, processorGroup, tlsDir: o.tlsDir, ingest, pods, balancer: undefined,
    pod: (service) => pods.get(service)!,
  };
}

/** Every service at once, except the third processor (rebalances start it); resolves with those that failed to come up at the first try. */
export async function startServices(d: Deployment): Promise<string[]> {
  const first = [...d.pods.values()].filter((p) => p.name !== 'process-3');
  const outcomes = await Promise.allSettled(first.map((p) => p.start()));
  d.balancer = await UdpBalancer.start(d.ingest.map((p) => ({ udpPort: p.ipfix, httpPort: p.http })));
  return outcomes.flatMap((o, i) => (o.status === 'rejected' ? [`${first[i]!.name}: ${(o.reason as Error).message.split('\n')[0]}`] : []));
}

/** SIGTERM to every service, then the destinations; resolves with the services that did not exit 0. */
export async function stopDeployment(d: Deployment): Promise<string[]> {
  const codes = await Promise.all([...d.pods.values()].map(async (p) => [p.name, await p.stop()] as const));
  d.balancer?.close();
  await stopSinks(d);
  return codes.flatMap(([name, code]) => stopProblems(name, code));
}

/** Writes what every run of every service logged to `dir` (one file a run), for a failed run to be read; returns `dir`. */
export async function keepLogs(d: Pick<Deployment, 'pods'>, dir: string): Promise<string> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const p of d.pods.values()) {
    for (const [i, text] of p.logs().entries()) await writeFile(join(dir, `${p.name}.${i + 1}.log`), text);
  }
  return dir;
}
