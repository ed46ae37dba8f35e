// Issue 21 on the embedded log: the single-machine shape, one `flowagg run` (ingest, the processor and the
// three exporters in one process, on the embedded log) while it and its destinations fail. Antrea Agents
// over TCP, gRPC and UDP at a fixed rate, reconnecting as Agents do. Then, every few seconds, one event drawn
// from the seed (testing/schedule.ts, EMBEDDED_PLAN): `flowagg run` SIGKILLed (started again 0-5 s later,
// sometimes killed again while that run is starting), SIGSTOPped, ClickHouse or the IPFIX collector down.
// At the end, drained and stopped, and judged as the Kafka test judges (testing/judge.ts) from the embedded
// log's flows.raw and flows.processed: per flow and per Node the sums of flows.processed equal those of
// flows.raw, every destination holds exactly the rows of flows.processed, and what the Agents sent that
// flows.raw lacks is what the sequence numbers and the kills of `flowagg run` account for. Aggregate, then
// Proxy, each with a log of its own. testing/profile.ts says how to run it longer; the seed of a run is
// printed first, and FLOWAGG_CHAOS_SEED=<seed> plays the same events again.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EmbeddedLog } from '../../lib/log/embedded/index.js';
import { clickHouseForTests, type ClickHouseForTests } from '../harness/clickhouse.js';
import { startChaosAgents } from './testing/agents.js';
import { playSchedule } from './testing/chaos.js';
import { issueCertificates, keepLogs } from './testing/deployment.js';
import { dropClickHouseDatabase } from './testing/destinations.js';
import { drainEmbedded } from './testing/embedded-drain.js';
import { prepareEmbedded, stopEmbedded } from './testing/embedded-deployment.js';
import { judge } from './testing/judge.js';
import { lastWarnings } from './testing/pod-report.js';
import { type ChaosMode, type ChaosProfile, LEAD_IN_S, chaosProfile, chaosSkipped, chaosTimeoutMs, describeProfile, modeSeed } from './testing/profile.js';
import { EMBEDDED_PLAN, chaosSchedule } from './testing/schedule.js';

const say = (line: string) => console.log(`[chaos embedded] ${line}`);
const DRAIN_TIMEOUT_MS = 180_000;

async function runMode(t: TestContext, o: { mode: ChaosMode; profile: ChaosProfile; clickhouse: ClickHouseForTests; dir: string; tlsDir: string; seed: number }): Promise<void> {
  const started = Date.now();
  const { profile, mode } = o;
  const d = await prepareEmbedded({ mode, dir: o.dir, clickhouse: o.clickhouse, tlsDir: o.tlsDir, runId: `${o.seed}-${Date.now().toString(36)}` });
  t.after(() => dropClickHouseDatabase(o.clickhouse, d.database));
  let stopped: string[] | undefined;
  // Whatever fails before the verdict (an event, the Agents), `flowagg run` does not outlive the test.
  t.after(async () => {
    if (stopped === undefined) await stopEmbedded(d);
  });
  const notUp = await d.run.start().then(() => [], (err: unknown) => [`flowagg run did not come up at the first try: ${(err as Error).message.split('\n')[0]}`]);
  say(`${mode}: flowagg run started on a fresh embedded log in ${d.logDir}`);
  const ipfix = `127.0.0.1:${d.ports.ipfix}`;
  const agents = startChaosAgents({ tcp: ipfix, grpc: `127.0.0.1:${d.ports.grpc}`, udp: ipfix }, { profile, tlsDir: o.tlsDir });
  await Promise.all(agents.map((a) => a.connected));
  const up = Date.now();
  await sleep(LEAD_IN_S * 1000);
  const events = chaosSchedule(profile, o.seed, EMBEDDED_PLAN);
  const timeline = await playSchedule(events, d, undefined, (line) => say(`${mode}: ${line}`));
  const reports = await Promise.all(agents.map((a) => a.report));
  const played = Date.now();
  let log: EmbeddedLog | undefined;
  try {
    const drained = await drainEmbedded(d, DRAIN_TIMEOUT_MS, (line) => say(`${mode}: ${line}`)).catch((err: unknown) => {
      for (const w of lastWarnings([d.run])) say(`${mode}: ${w}`);
      throw err;
    });
    log = drained.log;
    const times = { started, up, played, drained: Date.now() };
    stopped = [...drained.stopped, ...(await stopEmbedded(d))];
    say(`${mode}: flowagg run started ${d.run.starts} times (${timeline.ingestKilled.length} SIGKILLs)`);
    await judge({
      mode, profile, seed: o.seed, events, timeline, reports, log, topics: d.topics, sinks: d, clickhouse: o.clickhouse,
      pods: [d.run], ipfixExporter: d.run, times, problems: [...notUp, ...stopped.map((x) => `on SIGTERM, ${x}`)],
    }, say);
  } catch (err) {
    say(`${mode}: every log of flowagg run is kept in ${await keepLogs(d, join(tmpdir(), `flowagg-chaos-embedded-${o.seed}-${mode}-logs`))}`);
    throw err;
  } finally {
    await log?.close();
    if (stopped === undefined) stopped = await stopEmbedded(d);
  }
}

const profile = chaosProfile();
const clickhouse = clickHouseForTests();
const timeout = chaosTimeoutMs(profile);

test('chaos on the embedded log: flowagg run killed, killed while starting and stalled, the destinations down; every total exact', { skip: chaosSkipped() || clickhouse.skip, timeout }, async (t) => {
  say(describeProfile(profile));
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-chaos-embedded-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const tlsDir = await issueCertificates(dir);
  for (const mode of profile.modes) await t.test(mode, (s) => runMode(s, { mode, profile, clickhouse: clickhouse.server!, dir, tlsDir, seed: modeSeed(profile.seed, mode) }));
});
