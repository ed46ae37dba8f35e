import assert from 'node:assert/strict';
import { test } from 'node:test';
import { componentLogger } from '../telemetry/logger.js';
import { Supervisor, type SupervisionPolicy } from './supervisor.js';
import { FakeService } from './testing.js';
import { until } from '../testing/until.js';

const FAST: SupervisionPolicy = { backoff: { initialMs: 1, maxMs: 5 }, maxRestarts: 2, windowMs: 60_000 };
const logger = componentLogger('supervisor-test');

function supervised(opts: { policy?: SupervisionPolicy; failStarts?: number } = {}) {
  const made: FakeService[] = [];
  let starts = 0;
  const supervisor = new Supervisor(() => {
    const startError = made.length > 0 && starts++ < (opts.failStarts ?? 0) ? new Error('still broken') : undefined;
    const svc = new FakeService('svc', { ...(startError && { startError }) });
    made.push(svc);
    return svc;
  }, { logger, policy: opts.policy ?? FAST });
  return { supervisor, made };
}

test('a service that fails at runtime is stopped and replaced by a new one; not ready in between', async () => {
  const { supervisor, made } = supervised({ policy: { ...FAST, backoff: { initialMs: 50, maxMs: 50 } } });
  await supervisor.start();
  assert.deepEqual(supervisor.readiness(), { ready: true });
  made[0]!.crash('the consumer died');
  assert.equal(supervisor.readiness().ready, false);
  assert.match(supervisor.readiness().detail!, /svc failed \(the consumer died\); restart 1 of 2/);
  await until('the new service runs', () => made.length === 2 && made[1]!.state === 'running');
  assert.equal(made[0]!.state, 'stopped');
  assert.equal(supervisor.current, made[1]);
  assert.deepEqual(supervisor.readiness(), { ready: true });
  await supervisor.stop();
  assert.equal(made[1]!.state, 'stopped');
});

test('more failures than maxRestarts within the window: the supervisor gives up and says so', async () => {
  const { supervisor, made } = supervised();
  const gaveUp: unknown[] = [];
  supervisor.onFailure((err) => gaveUp.push(err));
  await supervisor.start();
  for (let i = 0; i < 3; i++) {
    await until(`service ${i} runs`, () => made[i]?.state === 'running');
    made[i]!.crash(`crash ${i}`);
  }
  await until('the supervisor gives up', () => gaveUp.length === 1);
  assert.equal(made.length, 3, 'two restarts, no third');
  assert.match(supervisor.readiness().detail!, /failed 3 times within 60000 ms: svc crash 2|crash 2/);
  await supervisor.stop();
});

test('a restart that fails to start counts as another failure', async () => {
  const { supervisor, made } = supervised({ failStarts: 1 });
  await supervisor.start();
  made[0]!.crash();
  await until('the third service runs', () => made.length === 3 && made[2]!.state === 'running');
  assert.equal(made[1]!.state, 'stopped', 'the service that failed to start was released');
  await supervisor.stop();
});

test('stop during the backoff ends the restart: no new service is made', async () => {
  const { supervisor, made } = supervised({ policy: { ...FAST, backoff: { initialMs: 10_000, maxMs: 10_000 } } });
  await supervisor.start();
  made[0]!.crash();
  await supervisor.stop();
  assert.equal(made.length, 1);
  assert.equal(made[0]!.state, 'stopped');
});
