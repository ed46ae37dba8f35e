// Issue 15, scenario 6: the log of scenario 5 (an Agent joining late, one gone for good, the others' streams
// interleaved in flows.raw however their connections were read, and time enough for the one gone to be
// seen idle) replayed: flowagg run stopped, the processor's group reset to the start of flows.raw, started
// again. The flow log exporter goes on where it
// was, so the replay's exports follow the first run's in the flow log: flow by flow, the very same lines,
// export times included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Line, lineTuple, readFlowLog } from '../harness/flow-log.js';
import { stopRun } from '../harness/flowagg-run.js';
import { replayFromStart, settled } from './testing/drift-run.js';
import { JUDGED_FLOWS, runScenario } from './testing/scenario.js';
import { JOIN_AND_LEAVE } from './testing/scenarios.js';

/** Per judged flow, its exports in order, as text. */
function exportsByFlow(lines: readonly Line[], judged: ReadonlySet<string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const l of lines) {
    const key = lineTuple(l);
    if (!judged.has(key)) continue;
    let list = out.get(key);
    if (list === undefined) out.set(key, (list = []));
    list.push(JSON.stringify(l));
  }
  return out;
}

test('drift 6: the processor\'s group reset to the start and the log replayed: the same exports of every flow, export times included', async (t) => {
  const s = await runScenario(t, JOIN_AND_LEAVE);
  const judged = new Set(s.sent.ledger.flows(s.workload, JUDGED_FLOWS).map((f) => (f.source ?? f.destination)!.tuple));
  await stopRun(s.run);
  // Everything the first run exported is in the flow log once it stopped: the replay's lines come after.
  const firstRun = readFlowLog(s.dir).length;
  const replay = await replayFromStart(s.dir);
  t.after(() => { if (replay.child.process.exitCode === null) replay.child.process.kill('SIGKILL'); });
  await settled(replay, s.dir, 0);
  await stopRun(replay);
  const lines = readFlowLog(s.dir);
  const first = exportsByFlow(lines.slice(0, firstRun), judged);
  const again = exportsByFlow(lines.slice(firstRun), judged);
  assert.ok(first.size > JUDGED_FLOWS / 2, `${first.size} judged flows exported by the first run`);
  const differ = [...new Set([...first.keys(), ...again.keys()])].filter((k) => JSON.stringify(first.get(k)) !== JSON.stringify(again.get(k)));
  const example = differ.slice(0, 1).map((k) => `\n  first run: ${(first.get(k) ?? []).join('\n             ')}\n  replay:    ${(again.get(k) ?? []).join('\n             ')}`).join('');
  assert.equal(differ.length, 0, `${differ.length} of ${first.size} flows exported differently by the replay${example}`);
});
