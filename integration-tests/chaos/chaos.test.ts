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
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openKafkaLog } from '../../lib/log/kafka/index.js';
import { clickHouseForTests, type ClickHouseForTests } from '../harness/clickhouse.js';
import { type RestartableKafka, startRestartableKafka } from '../harness/kafka.js';
import { accountFor } from './testing/accounting.js';
import { startAgents } from './testing/agents.js';
import { playSchedule } from './testing/chaos.js';
import {
  clickHouseRow, countRows, dropClickHouseDatabase, flowLogRow, ipfixRow, readClickHouseRows, readFlowLogRows, readIpfixRows,
} from './testing/destinations.js';
import { keepLogs, prepareDeployment, issueCertificates, startServices, stopDeployment } from './testing/deployment.js';
import { drain } from './testing/drain.js';
import { readTopic } from './testing/log-contents.js';
import { type ChaosMode, type ChaosProfile, LEAD_IN_S, chaosProfile, chaosSkipped, chaosTimeoutMs, describeProfile } from './testing/profile.js';
import { chaosSchedule, describeEvent } from './testing/schedule.js';
import { destinationProblems, processorProblems, rawProblems } from './testing/verdict.js';

const say = (line: string) => console.log(`[chaos] ${line}`);
/** Each mode's events from a seed of its own, so that FLOWAGG_CHAOS_SEED with FLOWAGG_CHAOS_MODES=Proxy replays Proxy's. */
const modeSeed = (seed: number, mode: ChaosMode) => seed + (mode === 'Proxy' ? 1 : 0);
const DRAIN_TIMEOUT_MS = 180_000;

/** Records the IPFIX exporter logged as delivered again, over all its runs. */
function redelivered(logs: readonly string[]): number {
  let n = 0;
  for (const line of logs.join('\n').split('\n')) {
    if (line.includes('"msg":"delivering a batch again"')) n += (JSON.parse(line) as { records: number }).records;
  }
  return n;
}

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
  const seconds = LEAD_IN_S + profile.seconds + LEAD_IN_S;
  const agents = [
    startAgents('tcp', `127.0.0.1:${d.ingest[0].ipfix}`, { profile, firstNode: 0, seconds, tlsDir: o.tlsDir }),
    startAgents('grpc', `127.0.0.1:${d.ingest[1].grpc}`, { profile, firstNode: profile.nodes, seconds, tlsDir: o.tlsDir }),
    startAgents('udp', `127.0.0.1:${d.balancer!.port}`, { profile, firstNode: 2 * profile.nodes, seconds, tlsDir: o.tlsDir }),
  ];
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
      for (const p of d.pods.values()) {
        const lines = (p.logs().at(-1) ?? '').split('\n').filter((l) => /"level":(40|50|60)/.test(l)).slice(-6);
        say(`${o.mode}: ${p.name} (${p.state}, ${p.starts} starts) last warnings:\n${lines.join('\n')}`);
      }
      throw err;
    });
    const drained = Date.now();
    stopped = await stopDeployment(d);
    const raw = await readTopic(log, d.topics.flowsRaw);
    const processed = await readTopic(log, d.topics.flowsProcessed);
    const ipfixRedelivered = redelivered(d.pod('export-ipfix').logs());
    const outage = Math.max(0, ...timeline.brokerDown.map((w) => (w.to - w.from) / 1000));
    const accounting = accountFor(reports, raw, { longestBrokerOutageSeconds: outage, at: [...timeline.ingestKilled, ...timeline.brokerDown.map((w) => w.from)] });
    const clickhouse = destinationProblems('ClickHouse', countRows(processed.map((r) => clickHouseRow(r.record))), countRows(await readClickHouseRows(o.clickhouse, d.database)));
    const flowLog = destinationProblems('the flow log', countRows(processed.map((r) => flowLogRow(r.record))), countRows(readFlowLogRows(d.flowLog)));
    const ipfix = destinationProblems('the IPFIX collector', countRows(processed.map((r) => ipfixRow(r.record, o.mode))), countRows(readIpfixRows(d.collector, o.mode)), ipfixRedelivered);
    const crashes = [...d.pods.values()].flatMap((p) => p.crashes.map((c) => `${p.name} exited (${c.code ?? c.signal}) ${new Date(c.at).toISOString()}${c.wasReady ? '' : ' before it came up'}`));
    const sent = reports.reduce((n, r) => n + r.records.sent, 0);
    const s = (from: number, to: number) => `${((to - from) / 1000).toFixed(0)} s`;
    say(`${o.mode}: seed ${o.seed}, ${events.length} events; ${s(started, Date.now())} (up ${s(started, up)}, Agents ${s(up, played)} from ${new Date(up).toISOString()}, events from ${LEAD_IN_S} s after, drained ${s(played, drained)}); ` +
      `Agents sent ${sent} records, flows.raw holds ${raw.length}, flows.processed ${processed.length}; IPFIX rows twice ${ipfix.duplicates} (delivered again ${ipfixRedelivered})`);
    for (const n of accounting.nodes.filter((x) => x.missing !== 0)) say(`${o.mode}: ${n.node} (${n.transport}) sent ${n.sent}, flows.raw ${n.inRaw}: ${n.missing} missing, ${n.accountedFor} accounted for, ${n.breaks} broken connections, ${n.lost} counted lost by the Agent`);
    for (const c of crashes) say(`${o.mode}: ${c}`);
    // Connections the log had to cut at close (lib/log/kafka/sockets.ts): a broker left requests unanswered.
    const cut = [...d.pods.values()].filter((p) => p.logs().some((l) => l.includes('broker connections still open were cut'))).map((p) => p.name);
    if (cut.length > 0) say(`${o.mode}: closing the log cut broker connections still open in ${cut.join(', ')}`);
    const problems = [
      ...notUp.map((n) => `on fresh topics, did not come up at the first try: ${n}`),
      ...stopped.map((s) => `on SIGTERM, ${s}`),
      ...rawProblems(raw), ...processorProblems(o.mode, raw, processed), ...accounting.problems,
      ...clickhouse.problems, ...flowLog.problems, ...ipfix.problems,
    ];
    assert.ok(processed.length > 0 && raw.length > 0, 'records went through');
    assert.deepEqual(problems.slice(0, 40), [], `${o.mode}, seed ${o.seed} (FLOWAGG_CHAOS_SEED=${profile.seed} FLOWAGG_CHAOS_MODES=${o.mode} replays it): ${problems.length} problems; events:\n${events.map(describeEvent).join('\n')}\ncrashes:\n${crashes.join('\n')}`);
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
