// Runs every test file under node's test runner. Before the run it brings up the shared services the
// functional tests need (a Kafka broker: KAFKA_BROKERS, else Testcontainers with the locally built
// image, else the local launcher in infra/dev; a schema registry: SCHEMA_REGISTRY_URL, else
// infra/dev/schema-registry; a ClickHouse server, the same way as Kafka, and an S3-compatible server
// when their tests run) once for the whole run, and hands them to the test
// processes through the environment.
// `--unit` skips the services and the tests that need them; extra arguments are file filters.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { clickHouseEnv, startClickHouse } from '../integration-tests/harness/clickhouse.js';
import { containerRuntimeAnswers, testcontainers } from '../integration-tests/harness/containers.js';
import { startKafka } from '../integration-tests/harness/kafka.js';
import { startS3 } from '../integration-tests/harness/s3.js';
import { schemaRegistryEnv, startSchemaRegistry } from '../integration-tests/harness/schema-registry.js';
import { longRunTimeoutMs } from '../integration-tests/chaos/testing/profile.js';

const ROOTS = ['bin', 'app', 'simulate', 'ingest', 'processor', 'exporters', 'schemas', 'lib', 'integration-tests', 'bench', 'scripts', 'infra'];

function findTests(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) findTests(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(process.cwd(), path));
  }
  return out;
}

const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const filters = args.filter((a) => !a.startsWith('--'));
const isFunctional = (f: string) => f.endsWith('.functional.test.ts') || f.startsWith('integration-tests/');

let files = ROOTS.flatMap((r) => { try { return findTests(r, []); } catch { return []; } }).sort();
if (unitOnly) files = files.filter((f) => !isFunctional(f));
if (filters.length > 0) files = files.filter((f) => filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

// Services log at info; in tests only warnings and errors are worth the noise.
const env: NodeJS.ProcessEnv = { FLOWAGG_LOG_LEVEL: 'warn', ...process.env };
let stopServices = async () => {};
let running: ReturnType<typeof spawn> | undefined;
// A run stopped from outside (Ctrl-C, a CI timeout, kill) stops its tests and the services it started: the
// local brokers and the schema registry are daemons, and would outlive it.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    running?.kill(signal);
    void stopServices().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}
if (!unitOnly && files.some(isFunctional)) {
  // Every Testcontainers user of the run (this process and the tests) gets flowagg's reaper in place of
  // Ryuk, which cannot be pulled here; no runtime: the services come from infra/dev, and the tests say so.
  if (await containerRuntimeAnswers()) {
    try {
      await testcontainers((line) => console.log(`[containers] ${line}`));
      env.RYUK_CONTAINER_IMAGE = process.env.RYUK_CONTAINER_IMAGE;
      env.TESTCONTAINERS_HOST_OVERRIDE = process.env.TESTCONTAINERS_HOST_OVERRIDE;
    } catch (err) {
      // The images cannot be built here (no debootstrap, no root): the tests that need them say why.
      console.log(`[containers] ${(err as Error).message}`);
    }
  } else {
    console.log('[containers] no container runtime answers: services from infra/dev, container tests skipped');
  }
  const kafka = await startKafka((line) => console.log(`[kafka] ${line}`));
  env.KAFKA_BROKERS = kafka.brokers;
  if (kafka.saslBrokers !== undefined) env.KAFKA_SASL_BROKERS = kafka.saslBrokers;
  console.log(`[kafka] brokers ${kafka.brokers} (${kafka.source})`);
  const registry = await startSchemaRegistry((line) => console.log(`[schema-registry] ${line}`)).catch(async (err: unknown) => {
    await kafka.stop();
    throw err;
  });
  Object.assign(env, schemaRegistryEnv(registry));
  console.log(`[schema-registry] ${registry.url}${registry.secure ? `, mutual TLS and basic auth on ${registry.secure.url}` : ''} (${registry.source})`);
  stopServices = async () => {
    await registry.stop();
    await kafka.stop();
  };
}
/** Tests that need a service their path does not name: the chaos test's destinations include ClickHouse. */
const ALSO_NEEDED_BY: Readonly<Record<string, readonly string[]>> = { clickhouse: ['integration-tests/chaos/'] };
/** Starts a service for the run when a functional test whose path names it (or needs it) is selected. */
async function withService(name: string, start: () => Promise<{ env: Record<string, string>; source: string; stop: () => Promise<void> }>): Promise<void> {
  const needs = (f: string) => f.includes(name) || (ALSO_NEEDED_BY[name] ?? []).some((folder) => f.startsWith(folder));
  if (unitOnly || !files.some((f) => isFunctional(f) && needs(f))) return;
  const service = await start();
  Object.assign(env, service.env);
  const stopOthers = stopServices;
  stopServices = async () => {
    await service.stop();
    await stopOthers();
  };
  console.log(`[${name}] ${Object.values(service.env)[0]} (${service.source})`);
}
const say = (name: string) => (line: string) => console.log(`[${name}] ${line}`);
await withService('clickhouse', async () => {
  const s = await startClickHouse(say('clickhouse'));
  return { env: clickHouseEnv(s), source: s.source, stop: s.stop };
});
await withService('s3', async () => {
  const s = await startS3(say('s3'));
  return { env: { S3_ENDPOINT: s.endpoint }, source: s.source, stop: s.stop };
});

// The attack tests bound /healthz latency while they flood ingest: they run after the others, one at a time,
// so that the latency they measure is the attack's and not a neighbouring test's.
const isExclusive = (f: string) => f.includes('/attacks/');
// Each file runs under this bound (node's runner treats a file as one test); a chaos run or soak asked to
// run longer gets its own bound and a minute, so that its own timeout, which says more, fires first.
const FILE_TIMEOUT_MS = Math.max(600_000, longRunTimeoutMs() + 60_000);
/** Runs test files under node's runner; resolves with its exit code. */
function runTests(batch: readonly string[], concurrency: number): Promise<number> {
  if (batch.length === 0) return Promise.resolve(0);
  const child = (running = spawn(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, `--test-timeout=${FILE_TIMEOUT_MS}`, ...batch],
    { stdio: 'inherit', env },
  ));
  return new Promise((resolve) => child.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0))));
}
const shared = await runTests(files.filter((f) => !isExclusive(f)), 2);
const exclusive = await runTests(files.filter(isExclusive), 1);
await stopServices();
process.exit(shared !== 0 ? shared : exclusive);
