// Issue 21's soak: the chaos test's deployment, without the chaos, at a steady rate for as long as
// FLOWAGG_SOAK_SECONDS says (the issue's 30 minutes: 1800; not run unless set, so not in CI): three simulators
// of FLOWAGG_SOAK_FLOWS flows (300) exported every 5 s, about 300 records a second. flows.raw and
// flows.processed are created first with a short retention (FLOWAGG_SOAK_RETENTION, 120 s), and all three
// with 1 MiB segments, as an operator sizes them. Every FLOWAGG_SOAK_SAMPLE seconds (10) it samples each service's memory, descriptors, sockets
// and timers, the lags, the end-to-end latency and the broker's disk (testing/soak-samples.ts), and at the
// end plots them to FLOWAGG_SOAK_PLOT (a PNG; by default in the run's directory, its path printed; the samples
// beside it, .jsonl as they are taken and .tsv as plotted). Then:
// heap and RSS of every service within 10 % of their values at the reference point (5 minutes in, or half
// way through a shorter run), no more descriptors, sockets or timers than then, the latency's 99th percentile
// as it was, and retention deleting flows.raw's oldest segments.
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openKafkaLog } from '../../lib/log/kafka/index.js';
import { clickHouseForTests } from '../harness/clickhouse.js';
import { startRestartableKafka } from '../harness/kafka.js';
import { requireTools } from '../harness/tools.js';
import { startAgents } from './testing/agents.js';
import { dropClickHouseDatabase } from './testing/destinations.js';
import { PROCESSED_PARTITIONS, RAW_PARTITIONS, issueCertificates, prepareDeployment, startServices, stopDeployment } from './testing/deployment.js';
import { chaosProfile, soakSeconds, soakTimeoutMs } from './testing/profile.js';
import { plotSoak } from './testing/soak-plot.js';
import { type SoakSample, SoakSampler } from './testing/soak-samples.js';

const say = (line: string) => console.log(`[soak] ${line}`);
const seconds = soakSeconds();
const sampleSeconds = Number(process.env.FLOWAGG_SOAK_SAMPLE ?? 10);
const retentionSeconds = Number(process.env.FLOWAGG_SOAK_RETENTION ?? 120);
const flows = Number(process.env.FLOWAGG_SOAK_FLOWS ?? 300);
const GNUPLOT = { command: 'gnuplot', debianPackage: 'gnuplot-nox' };
const clickhouse = clickHouseForTests();
const skip = seconds <= 0 ? 'FLOWAGG_SOAK_SECONDS is not set: the soak runs only when asked (FLOWAGG_SOAK_SECONDS=1800 for the issue\'s 30 minutes)' : clickhouse.skip;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;

/** The samples within `width` seconds after `from`. */
const window = (samples: readonly SoakSample[], from: number, width: number) => samples.filter((s) => s.t >= from && s.t < from + width);

test('soak: a steady rate for FLOWAGG_SOAK_SECONDS; memory, descriptors, latency and disk flat', { skip, timeout: soakTimeoutMs(seconds) }, async (t) => {
  if (!requireTools(t, GNUPLOT)) return;
  const profile = { ...chaosProfile(), flows, exportIntervalSeconds: Number(process.env.FLOWAGG_SOAK_EXPORT_INTERVAL ?? 5), modes: [process.env.FLOWAGG_SOAK_MODE === 'Proxy' ? 'Proxy' as const : 'Aggregate' as const] };
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-soak-'));
  const broker = await startRestartableKafka(say);
  const tlsDir = await issueCertificates(dir);
  const d = await prepareDeployment({ mode: profile.modes[0], dir, brokers: broker.brokers, clickhouse: clickhouse.server!, tlsDir, runId: `soak-${Date.now().toString(36)}` });
  const log = await openKafkaLog({ brokers: broker.brokers });
  // After the body, whose finally has stopped the services first.
  t.after(async () => {
    await log.close();
    await broker.stop();
    await rm(dir, { recursive: true, force: true });
  });
  let sampler: SoakSampler;
  let sent: number;
  try {
    // Segments of 1 MiB: the broker deletes and compacts only segments that have rolled, and the
    // processor's 64 MiB changelog segments would not roll within a short soak.
    const segmentBytes = 1024 * 1024;
    const retention = { retentionMs: retentionSeconds * 1000, segmentBytes };
    await log.admin().createTopics([
      { topic: d.topics.flowsRaw, partitions: RAW_PARTITIONS, ...retention },
      { topic: d.topics.flowsProcessed, partitions: PROCESSED_PARTITIONS, ...retention },
      { topic: d.topics.processorState, partitions: RAW_PARTITIONS, cleanupPolicy: 'compact', segmentBytes },
    ]);
    assert.deepEqual(await startServices(d), [], 'every service came up');
    const agents = [
      startAgents('tcp', `127.0.0.1:${d.ingest[0].ipfix}`, { profile, firstNode: 0, seconds, tlsDir }),
      startAgents('grpc', `127.0.0.1:${d.ingest[1].grpc}`, { profile, firstNode: profile.nodes, seconds, tlsDir }),
      startAgents('udp', `127.0.0.1:${d.balancer!.port}`, { profile, firstNode: 2 * profile.nodes, seconds, tlsDir }),
    ];
    await Promise.all(agents.map((a) => a.connected));
    sampler = new SoakSampler(d, log, broker.dataDir, Date.now());
    let done = false;
    const reports = Promise.all(agents.map((a) => a.report)).finally(() => (done = true));
    const png = process.env.FLOWAGG_SOAK_PLOT ?? join(dir, 'soak.png');
    // Each sample as it is taken, so that a run cut short still leaves what it measured.
    await writeFile(`${png}.jsonl`, '');
    while (!done) {
      const s = await sampler.sample();
      await appendFile(`${png}.jsonl`, `${JSON.stringify(s)}\n`);
      if (Math.round(s.t) % 60 < sampleSeconds) say(`${s.t.toFixed(0)} s: p99 latency ${s.latencyP99.toFixed(1)} s, lag ${s.rawLag}/${s.processedLag}, disk flows.raw ${mib(s.disk.raw)}, ingest-1 RSS ${mib(s.services['ingest-1']?.rss ?? 0)}`);
      await Promise.race([sleep(sampleSeconds * 1000), reports]);
    }
    sent = (await reports).reduce((n, r) => n + r.records.sent, 0);
    await plotSoak(sampler.samples, png, `flowagg soak, ${profile.modes[0]}: ${seconds} s, ${sent} records from 3 simulators, sampled every ${sampleSeconds} s`);
    say(`plot: ${png} (data beside it, .tsv); ${sent} records sent in ${seconds} s`);
  } finally {
    await stopDeployment(d);
    await dropClickHouseDatabase(clickhouse.server!, d.database);
  }
  const low = (await log.admin().fetchTopicOffsets(d.topics.flowsRaw)).reduce((n, p) => n + p.low, 0);

  const samples = sampler.samples;
  const reference = Math.min(300, seconds / 2);
  const start = window(samples, reference - sampleSeconds * 2, sampleSeconds * 5);
  const end = samples.slice(-5);
  const problems: string[] = [];
  for (const name of Object.keys(end[0]!.services)) {
    const at = (ws: readonly SoakSample[], k: 'rss' | 'heap' | 'fds' | 'sockets' | 'timers') => ws.flatMap((s) => (s.services[name] === undefined ? [] : [s.services[name]![k]]));
    for (const k of ['rss', 'heap'] as const) {
      const [before, after] = [median(at(start, k)), median(at(end, k))];
      say(`${name} ${k}: ${mib(before)} at ${reference.toFixed(0)} s, ${mib(after)} at the end`);
      if (after > before * 1.1) problems.push(`${name}: ${k} ${mib(after)} at the end, ${mib(before)} at ${reference.toFixed(0)} s (more than 10 % up)`);
    }
    for (const k of ['fds', 'sockets', 'timers'] as const) {
      const [before, after] = [Math.max(...at(start, k)), Math.max(...at(end, k))];
      if (after > before + 2) problems.push(`${name}: ${after} ${k} at the end, ${before} at ${reference.toFixed(0)} s`);
    }
  }
  const latency = (ws: readonly SoakSample[]) => median(ws.map((s) => s.latencyP99).filter((v) => !Number.isNaN(v)));
  say(`p99 latency ${latency(start).toFixed(1)} s at ${reference.toFixed(0)} s, ${latency(end).toFixed(1)} s at the end`);
  if (latency(end) > latency(start) * 1.5 + 1) problems.push(`p99 latency ${latency(end).toFixed(1)} s at the end, ${latency(start).toFixed(1)} s at ${reference.toFixed(0)} s`);
  say(`flows.raw: ${low} records deleted by retention; disk ${mib(samples.at(-1)!.disk.raw)} at the end, at most ${mib(Math.max(...samples.map((s) => s.disk.raw)))}`);
  if (seconds > 3 * retentionSeconds && low === 0) problems.push(`flows.raw: nothing deleted by a retention of ${retentionSeconds} s after ${seconds} s`);
  assert.deepEqual(problems, [], `${sent} records sent in ${seconds} s`);
});
