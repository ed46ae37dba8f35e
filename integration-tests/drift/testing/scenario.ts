// One drift scenario end to end: a fresh `flowagg run`, the workload's Agents sending per their scripts
// (judged flows, then filler long enough for every judged flow's deadlines to pass in event time, and in
// wall time for its retries to pass in receive time and a source gone for good to be seen idle), the run
// settled, and the verdict on the flow log.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { antreaWorkload, type AgentNode, type Workload } from '../../../simulate/antrea/workload.js';
import { readFlowLog } from '../../harness/flow-log.js';
import type { Run } from '../../harness/flowagg-run.js';
import { agentStreams } from './agent-streams.js';
import { settled, startDriftRun, uncorrelatedCount } from './drift-run.js';
import { judge, type Verdict } from './judge.js';
import { type AgentScript, sendStreams, type SendResult } from './sender.js';
import { IDLE_WALL_S, PEER_WAIT_WALL_S, SETTLE_AGENT_S } from './time-model.js';

const NODES = 6;
export const JUDGED_FLOWS = 2000;
/** Flows of each later generation sent as filler: enough for every Agent to export every second or so. */
const FILLER_FLOWS = 200;
/** Agent seconds per wall second when paced: 300 s of agent time in 15 s. */
export const SPEED = 20;

export function scenarioWorkload(): Workload {
  return antreaWorkload({ nodes: NODES, flows: JUDGED_FLOWS, seed: 15, startTime: Math.floor(Date.now() / 1000) });
}

/** Agent time (s, absolute) `s` seconds after the workload's first exports start. */
export const at = (w: Workload, s: number): number => w.options.startTime + s;

export interface ScenarioOptions {
  readonly speed: number | 'unpaced';
  /** Per Node index, in the workload's agent time (see `at`). */
  readonly scripts?: (w: Workload) => ReadonlyMap<number, AgentScript>;
  readonly clockOffset?: (node: AgentNode) => number;
}

export interface ScenarioRun {
  readonly dir: string;
  readonly run: Run;
  readonly workload: Workload;
  readonly sent: SendResult;
  readonly verdict: Verdict;
}

/** Where the judged flows' records end, in agent time: their last exports, or the latest end of a script's disturbance. */
function judgedEnd(w: Workload, scripts: ReadonlyMap<number, AgentScript> | undefined): number {
  const lastExport = at(w, (w.options.recordsPerHalf + 2) * w.options.exportIntervalS);
  const disturbances = [...(scripts?.values() ?? [])].flatMap((s) => [s.heldBack?.until ?? 0, s.outage?.until ?? 0, s.joinsAt ?? 0]);
  return Math.max(lastExport, ...disturbances);
}

/** Sends the scenario to a fresh `flowagg run`, judges its flow log, and leaves the run up (the caller stops it). */
export async function runScenario(t: TestContext, o: ScenarioOptions): Promise<ScenarioRun> {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-drift-'));
  const run = await startDriftRun(dir);
  t.after(() => { if (run.child.process.exitCode === null) run.child.process.kill('SIGKILL'); });
  const w = scenarioWorkload();
  const scripts = o.scripts?.(w);
  const stops = [...(scripts?.entries() ?? [])].filter(([, s]) => s.stopsAt !== undefined);
  // Unpaced, the Agents' time does not follow the wall clock: an Agent that stops is not given wall time to be seen idle.
  const speed = o.speed === 'unpaced' ? 0 : o.speed;
  const end = judgedEnd(w, scripts);
  const fillerUntil = Math.max(end + SETTLE_AGENT_S, end + speed * PEER_WAIT_WALL_S, ...stops.map(([, s]) => s.stopsAt! + speed * IDLE_WALL_S));
  const streams = agentStreams(w, { fillerUntil, fillerFlows: FILLER_FLOWS, ...(o.clockOffset && { clockOffset: o.clockOffset }), withoutFiller: new Set(stops.map(([i]) => i)) });
  const sent = await sendStreams(w, streams, { port: run.tcpPort, speed: o.speed, ...(scripts && { scripts }) });
  assert.equal(sent.lost, 0, 'no record lost in transit');
  await settled(run, dir, sent.ledger.records);
  const verdict = judge(sent.ledger.flows(w, JUDGED_FLOWS), readFlowLog(dir), await uncorrelatedCount(run));
  return { dir, run, workload: w, sent, verdict };
}

