// Issue 15, scenario 1 (UNPACED in testing/scenarios.ts): connections are read at different speeds, so one
// Agent's stream runs ahead of another's in flows.raw; every flow must still come out exact and correlated.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stopRun } from '../harness/flowagg-run.js';
import { allRight } from './testing/judge.js';
import { JUDGED_FLOWS, runScenario } from './testing/scenario.js';
import { UNPACED } from './testing/scenarios.js';

test('drift 1: every Agent as fast as flowagg reads: every flow exact and correlated', async (t) => {
  const s = await runScenario(t, UNPACED);
  await stopRun(s.run);
  assert.equal(s.verdict.total, JUDGED_FLOWS);
  assert.ok(allRight(s.verdict), s.verdict.summary());
});
