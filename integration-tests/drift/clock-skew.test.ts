// Issue 15, scenario 3 (CLOCK_SKEW in testing/scenarios.ts): Agents' clocks seconds apart, export times
// and flow times alike; the Agent ahead must not expire what the ones behind report.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stopRun } from '../harness/flowagg-run.js';
import { allRight } from './testing/judge.js';
import { JUDGED_FLOWS, runScenario } from './testing/scenario.js';
import { CLOCK_SKEW } from './testing/scenarios.js';

test('drift 3: Agents\' clocks 3 s apart, some ahead, some behind: every flow exact and correlated', async (t) => {
  const s = await runScenario(t, CLOCK_SKEW);
  await stopRun(s.run);
  assert.equal(s.verdict.total, JUDGED_FLOWS);
  assert.ok(allRight(s.verdict), s.verdict.summary());
});
