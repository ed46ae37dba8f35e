// Issue 15, scenario 4: Agents paced at 20× their time; one Agent's connection closed for 60 s of its time
// while it goes on buffering, then a new connection (a new session: templates again) carrying its backlog
// with the original export times.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stopRun } from '../harness/flowagg-run.js';
import { allRight } from './testing/judge.js';
import { at, JUDGED_FLOWS, runScenario, SPEED } from './testing/scenario.js';

test('drift 4: one Agent disconnected for 60 s, then reconnecting with its backlog: every flow exact and correlated', async (t) => {
  const s = await runScenario(t, { speed: SPEED, scripts: (w) => new Map([[3, { outage: { from: at(w, 12), until: at(w, 72) } }]]) });
  await stopRun(s.run);
  assert.equal(s.verdict.total, JUDGED_FLOWS);
  assert.ok(allRight(s.verdict), s.verdict.summary());
});
