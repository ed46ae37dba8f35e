// Issue 15, scenario 5 (JOIN_AND_LEAVE in testing/scenarios.ts): an Agent that starts late and one that stops
// for good. A half whose peer never sent anything is exported alone and counted; nothing else may be.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stopRun } from '../harness/flowagg-run.js';
import { allRight } from './testing/judge.js';
import { runScenario } from './testing/scenario.js';
import { JOIN_AND_LEAVE } from './testing/scenarios.js';

test('drift 5: an Agent joining mid-stream, another stopping for good: every flow exact, only the halves without a peer alone, and counted', async (t) => {
  const s = await runScenario(t, JOIN_AND_LEAVE);
  await stopRun(s.run);
  assert.ok(s.verdict.uncorrelatedExpected > 10, `${s.verdict.uncorrelatedExpected} flows whose peer never came: the scenario has some`);
  assert.ok(allRight(s.verdict), s.verdict.summary());
});
