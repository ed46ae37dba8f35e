// Issue 15, scenario 2 (HELD_BACK in testing/scenarios.ts): one Agent's stream behind the others' (a
// connection read slowly, a backlog after a blip), then released. The others' time must not expire the
// flows it has not reported yet.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stopRun } from '../harness/flowagg-run.js';
import { allRight } from './testing/judge.js';
import { JUDGED_FLOWS, runScenario } from './testing/scenario.js';
import { HELD_BACK } from './testing/scenarios.js';

test('drift 2: one Agent held back by 30 s of its time, then released: every flow exact and correlated', async (t) => {
  const s = await runScenario(t, HELD_BACK);
  await stopRun(s.run);
  assert.equal(s.verdict.total, JUDGED_FLOWS);
  assert.ok(allRight(s.verdict), s.verdict.summary());
});
