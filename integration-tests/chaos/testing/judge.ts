// The verdict of a chaos run, the same for every deployment once it is drained and stopped: what the log
// holds (flows.raw, flows.processed) against what the Agents sent (accounting.ts) and what each destination
// holds (verdict.ts), printed as a summary, and asserted: no problem at all, or the test fails naming the
// seed, the events and the services' unexpected exits.
import assert from 'node:assert/strict';
import type { MessageLog } from '../../../lib/log/types.js';
import type { SimulationReport } from '../../../simulate/report.js';
import type { ClickHouseForTests } from '../../harness/clickhouse.js';
import { accountFor, brokerHoldSeconds } from './accounting.js';
import type { Timeline } from './chaos.js';
import type { Topics } from './config.js';
import { clickHouseRow, countRows, flowLogRow, ipfixRow, readClickHouseRows, readFlowLogRows, readIpfixRows } from './destinations.js';
import { readTopic } from './log-contents.js';
import type { Pod } from './pod.js';
import { type ChaosMode, type ChaosProfile, LEAD_IN_S } from './profile.js';
import { type ChaosEvent, describeEvent } from './schedule.js';
import type { Sinks } from './sinks.js';
import { destinationProblems, processorProblems, rawProblems } from './verdict.js';

export interface ChaosRun {
  readonly mode: ChaosMode;
  readonly profile: ChaosProfile;
  /** This mode's seed. */
  readonly seed: number;
  readonly events: readonly ChaosEvent[];
  readonly timeline: Timeline;
  readonly reports: readonly SimulationReport[];
  /** The log, drained, its services stopped. */
  readonly log: MessageLog;
  readonly topics: Topics;
  readonly sinks: Sinks;
  readonly clickhouse: ClickHouseForTests;
  readonly pods: readonly Pod[];
  /** The pod whose logs say which batches the IPFIX exporter delivered again. */
  readonly ipfixExporter: Pod;
  /** ms since the epoch: the deployment built, the Agents connected, the events played, the run drained. */
  readonly times: { readonly started: number; readonly up: number; readonly played: number; readonly drained: number };
  /** Found before: services that did not come up at the first try, or did not exit 0 on SIGTERM. */
  readonly problems: readonly string[];
}

/** Records the IPFIX exporter logged as delivered again, over all its runs. */
function redelivered(logs: readonly string[]): number {
  let n = 0;
  for (const line of logs.join('\n').split('\n')) {
    if (line.includes('"msg":"delivering a batch again"')) n += (JSON.parse(line) as { records: number }).records;
  }
  return n;
}

export async function judge(r: ChaosRun, say: (line: string) => void): Promise<void> {
  const { mode, timeline } = r;
  const raw = await readTopic(r.log, r.topics.flowsRaw);
  const processed = await readTopic(r.log, r.topics.flowsProcessed);
  const ipfixRedelivered = redelivered(r.ipfixExporter.logs());
  const stall = Math.max(0, ...timeline.ingestStalledMs) / 1000;
  const accounting = accountFor(r.reports, raw, { longestBrokerHoldSeconds: brokerHoldSeconds(timeline.brokerDown, timeline.ingestKilled), longestIngestStallSeconds: stall, at: [...timeline.ingestKilled, ...timeline.brokerDown.map((w) => w.from)] });
  const clickhouse = destinationProblems('ClickHouse', countRows(processed.map((x) => clickHouseRow(x.record))), countRows(await readClickHouseRows(r.clickhouse, r.sinks.database)));
  const flowLog = destinationProblems('the flow log', countRows(processed.map((x) => flowLogRow(x.record))), countRows(readFlowLogRows(r.sinks.flowLog)));
  const ipfix = destinationProblems('the IPFIX collector', countRows(processed.map((x) => ipfixRow(x.record, mode))), countRows(readIpfixRows(r.sinks.collector, mode)), ipfixRedelivered);
  const crashes = r.pods.flatMap((p) => p.crashes.map((c) => `${p.name} exited (${c.code ?? c.signal}) ${new Date(c.at).toISOString()}${c.wasReady ? '' : ' before it came up'}`));
  const sent = r.reports.reduce((n, x) => n + x.records.sent, 0);
  const { started, up, played, drained } = r.times;
  const s = (from: number, to: number) => `${((to - from) / 1000).toFixed(0)} s`;
  say(`${mode}: seed ${r.seed}, ${r.events.length} events; ${s(started, Date.now())} (up ${s(started, up)}, Agents ${s(up, played)} from ${new Date(up).toISOString()}, events from ${LEAD_IN_S} s after, drained ${s(played, drained)}); ` +
    `Agents sent ${sent} records, flows.raw holds ${raw.length}, flows.processed ${processed.length}; IPFIX rows twice ${ipfix.duplicates} (delivered again ${ipfixRedelivered})`);
  for (const n of accounting.nodes.filter((x) => x.missing !== 0)) say(`${mode}: ${n.node} (${n.transport}) sent ${n.sent}, flows.raw ${n.inRaw}: ${n.missing} missing, ${n.accountedFor} accounted for, ${n.breaks} broken connections, ${n.lost} counted lost by the Agent`);
  // A Node that sent far less than the others of its simulator (a link that stopped short): how its link ended.
  for (const report of r.reports) {
    const typical = Math.max(...report.nodes.map((n) => n.records));
    for (const n of report.nodes.filter((x) => x.records < typical / 2)) say(`${mode}: ${n.name} (${report.transport}) sent ${n.records}, ${n.skipped} skipped (its link not ready), ${n.connects} connections, ${n.connected ? 'connected' : 'not connected'} at the end; last error: ${n.lastError ?? 'none'}`);
  }
  for (const c of crashes) say(`${mode}: ${c}`);
  const problems = [
    ...r.problems, ...rawProblems(raw), ...processorProblems(mode, raw, processed), ...accounting.problems,
    ...clickhouse.problems, ...flowLog.problems, ...ipfix.problems,
  ];
  assert.ok(processed.length > 0 && raw.length > 0, 'records went through');
  assert.deepEqual(problems.slice(0, 40), [], `${mode}, seed ${r.seed} (FLOWAGG_CHAOS_SEED=${r.profile.seed} FLOWAGG_CHAOS_MODES=${mode} replays it): ${problems.length} problems; events:\n${r.events.map(describeEvent).join('\n')}\ncrashes:\n${crashes.join('\n')}`);
}
