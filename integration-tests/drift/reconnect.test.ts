// Issue 15, scenario 4 (RECONNECT in testing/scenarios.ts): an Agent's connection closed for a minute of its
// time while it buffers, then a new connection (a new session: templates again) carrying its backlog with
// the original export times.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stopRun } from '../harness/flowagg-run.js';
import { allRight } from './testing/judge.js';
import { JUDGED_FLOWS, runScenario } from './testing/scenario.js';
import { RECONNECT } from './testing/scenarios.js';

test('drift 4: one Agent disconnected for 60 s, then reconnecting with its backlog: every flow exact and correlated', async (t) => {
  const s = await runScenario(t, RECONNECT);
  await stopRun(s.run);
  assert.equal(s.verdict.total, JUDGED_FLOWS);
  assert.ok(allRight(s.verdict), s.verdict.summary());
});
