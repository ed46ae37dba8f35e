// Issue 21: the deployed shape over Kafka while any part of it fails, the way a cluster lives. A Kafka broker
// of the test's own (6 partitions for flows.raw); every service a process of its own, all started at once on
// fresh topics (any service, in any order, must come up); Antrea Agents over TCP, gRPC and UDP (through one
// address in front of both ingest replicas) at a fixed rate, reconnecting as Agents do. Then, every few
// seconds, one event drawn from the seed: a service killed (started again 0-5 s later), a service stalled
// (SIGSTOP), the broker killed and started again on its data, ClickHouse or the IPFIX collector down, a
// processor joining or leaving. At the end, drained: per flow and per Node the sums of flows.processed equal
// those of flows.raw, every destination holds exactly the rows of flows.processed (the IPFIX collector's
// extra copies no more than the exporter logged as delivered again), and what the Agents sent that
// flows.raw lacks is what the sequence numbers and the Agents' reconnections account for. Aggregate, then
// Proxy, each on a broker of its own (the exporters' consumer groups are flowagg-export-<kind> whatever the
// deployment: a service of the first mode that had to be killed stays in its group for a session timeout,
// and a group shared by two deployments' exporters, subscribed to different topics, stood still). testing/profile.ts says how to run it longer; the seed of a run is printed
// first, and FLOWAGG_CHAOS_SEED=<seed> plays the same events again.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openKafkaLog } from '../../lib/log/kafka/index.js';
import { clickHouseForTests, type ClickHouseForTests } from '../harness/clickhouse.js';
import { type RestartableKafka, startRestartableKafka } from '../harness/kafka.js';
import { startChaosAgents } from './testing/agents.js';
import { playSchedule } from './testing/chaos.js';
import { dropClickHouseDatabase } from './testing/destinations.js';
import { keepLogs, prepareDeployment, issueCertificates, startServices, stopDeployment } from './testing/deployment.js';
import { drain } from './testing/drain.js';
import { judge } from './testing/judge.js';
import { lastWarnings } from './testing/pod-report.js';
import { type ChaosMode, type ChaosProfile, LEAD_IN_S, chaosProfile, chaosSkipped, chaosTimeoutMs, describeProfile, modeSeed } from './testing/profile.js';
import { chaosSchedule } from './testing/schedule.js';

const say = (line: string) => console.log(`[chaos] ${line}`);
const DRAIN_TIMEOUT_MS = 180_000;

async function runMode(t: TestContext, o: { mode: ChaosMode; profile: ChaosProfile; broker: RestartableKafka; clickhouse: ClickHouseForTests; dir: string; tlsDir: string; seed: number }): Promise<void> {
  const started = Date.now();
  const { profile } = o;
  const d = await prepareDeployment({ mode: o.mode, dir: o.dir, brokers: o.broker.brokers, clickhouse: o.clickhouse, tlsDir: o.tlsDir, runId: `${o.seed}-${Date.now().toString(36)}` });
  t.after(() => dropClickHouseDatabase(o.clickhouse, d.database));
  let stopped: string[] | undefined;
  // Whatever fails before the verdict (an event, the Agents), no service outlives the test.
  t.after(async () => {
    if (stopped === undefined) await stopDeployment(d);
  });
  const notUp = await startServices(d);
  say(`${o.mode}: ${d.pods.size - 1} services started at once on fresh topics${notUp.length > 0 ? `; did not come up at the first try: ${notUp.join('; ')}` : ''}`);
  const agents = startChaosAgents({ tcp: `127.0.0.1:${d.ingest[0].ipfix}`, grpc: `127.0.0.1:${d.ingest[1].grpc}`, udp: `127.0.0.1:${d.balancer!.port}` }, { profile, tlsDir: o.tlsDir });
  await Promise.all(agents.map((a) => a.connected));
  const up = Date.now();
  await sleep(LEAD_IN_S * 1000);
  const events = chaosSchedule(profile, o.seed);
  const timeline = await playSchedule(events, d, o.broker, (line) => say(`${o.mode}: ${line}`));
  const reports = await Promise.all(agents.map((a) => a.report));
  const played = Date.now();
  const log = await openKafkaLog({ brokers: o.broker.brokers });
  try {
    await drain(d, log, DRAIN_TIMEOUT_MS).catch((err: unknown) => {
      for (const w of lastWarnings(d.pods.values())) say(`${o.mode}: ${w}`);
      throw err;
    });
    const drained = Date.now();
    stopped = await stopDeployment(d);
    // Connections the log had to cut at close (lib/log/kafka/sockets.ts): a broker left requests unanswered.
    const cut = [...d.pods.values()].filter((p) => p.logs().some((l) => l.includes('broker connections still open were cut'))).map((p) => p.name);
    if (cut.length > 0) say(`${o.mode}: closing the log cut broker connections still open in ${cut.join(', ')}`);
    await judge({
      mode: o.mode, profile, seed: o.seed, events, timeline, reports, log, topics: d.topics, sinks: d, clickhouse: o.clickhouse,
      pods: [...d.pods.values()], ipfixExporter: d.pod('export-ipfix'), times: { started, up, played, drained },
      problems: [...notUp.map((n) => `on fresh topics, did not come up at the first try: ${n}`), ...stopped.map((x) => `on SIGTERM, ${x}`)],
    }, say);
  } catch (err) {
    say(`${o.mode}: every service's log is kept in ${await keepLogs(d, join(tmpdir(), `flowagg-chaos-${o.seed}-${o.mode}-logs`))}`);
    throw err;
  } finally {
    await log.close();
    if (stopped === undefined) stopped = await stopDeployment(d);
  }
}

const profile = chaosProfile();
const clickhouse = clickHouseForTests();
const timeout = chaosTimeoutMs(profile);
test('chaos over Kafka: services killed and stalled, the broker and the destinations down, processors coming and going; every total exact', { skip: chaosSkipped() || clickhouse.skip, timeout }, async (t) => {
  say(describeProfile(profile));
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-chaos-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const tlsDir = await issueCertificates(dir);
  for (const mode of profile.modes) {
    await t.test(mode, async (s) => {
      const broker = await startRestartableKafka(say);
      s.after(() => broker.stop());
      await runMode(s, { mode, profile, broker, clickhouse: clickhouse.server!, dir, tlsDir, seed: modeSeed(profile.seed, mode) });
    });
  }
});
