import assert from 'node:assert/strict';
import { getPriority } from 'node:os';
import { test } from 'node:test';
import { isFlowaggError } from '../errors.js';
import { rootLogger } from '../telemetry/logger.js';
import { componentMetrics, counterTotal } from '../telemetry/metrics.js';
import { until } from '../testing/until.js';
import { THREAD_EXITED } from './errors.js';
import { ThreadedService } from './threaded-service.js';

const ENTRY = import.meta.resolve('./testing/counting-service.js');
const counting = (failStart = false, niceness?: number) => new ThreadedService({ name: 'counting', entry: ENTRY, open: () => ({ data: { failStart } }), ...(niceness !== undefined && { niceness }) }, rootLogger);
// The same counter in this thread: counterTotal reads the process's metrics, every thread's merged.
const counted = componentMetrics('thread_test').counter('calls_total', 'Calls counted by the test service on its thread');

test('a service on a thread: started and stopped from here, its calls answered, its readiness and metrics seen here', async () => {
  const service = counting();
  await service.start();
  assert.equal(service.state, 'running');
  assert.equal(await service.call('count', 21), 42);
  assert.equal(service.readiness().ready, false);
  await service.call('ready');
  await until('the thread to say it is ready', () => service.readiness().ready, { timeoutMs: 5000 });
  counted.inc(1);
  assert.equal(await counterTotal(counted), 22, 'the thread counted 21, this thread 1');
  await service.stop();
  assert.equal(service.state, 'stopped');
  assert.equal(await counterTotal(counted), 1, 'a stopped thread is no longer scraped');
  await assert.rejects(service.call('count', 1), (e: unknown) => isFlowaggError(e, 'FLOWAGG_ERR_THREAD_STATE'));
});

test('a start that fails on the thread rejects here with its code, and ends the thread', async () => {
  const service = counting(true);
  await assert.rejects(service.start(), (e: unknown) => isFlowaggError(e, 'FLOWAGG_ERR_TEST_START') && e.retriable && e.context.why === 'test');
  assert.equal(service.state, 'failed');
  await service.stop();
});

test('a failure on the thread, and a thread that dies, fail the service here and tell its listeners', async () => {
  for (const how of ['fail', 'die'] as const) {
    const service = counting();
    const failures: unknown[] = [];
    service.onFailure((err) => failures.push(err));
    await service.start();
    await service.call(how).catch(() => undefined);
    await until(`the service to fail (${how})`, () => failures.length === 1, { timeoutMs: 5000 });
    assert.equal(service.state, 'failed');
    assert.ok(how === 'fail' ? isFlowaggError(failures[0], 'FLOWAGG_ERR_TEST_FAILED') : isFlowaggError(failures[0], THREAD_EXITED), String(failures[0]));
    await service.stop();
    assert.equal(service.state, 'stopped');
  }
});

test("the threads log at this thread's level: the one at their start, and each change after, through one listener", async () => {
  const before = rootLogger.level;
  rootLogger.level = 'error';
  const services = [counting(), counting()];
  try {
    for (const service of services) await service.start();
    for (const service of services) assert.equal(await service.call('level'), 'error');
    // One listener for every thread: past ten on the logger, Node warns of a leak.
    assert.equal(rootLogger.listenerCount('level-change'), 1);
    rootLogger.level = 'debug';
    for (const service of services) {
      const seen: string[] = [];
      await until('the thread to log at debug', async () => { seen.push(await service.call<string>('level')); return seen.at(-1) === 'debug'; }, { timeoutMs: 5000 });
    }
  } finally {
    rootLogger.level = before;
    for (const service of services) await service.stop();
  }
  assert.equal(rootLogger.listenerCount('level-change'), 0, 'stopped threads follow no more');
});

test('a thread given a niceness runs that much below this thread, which keeps its own (Linux: nice values are per thread)', { skip: process.platform !== 'linux' }, async () => {
  const own = getPriority();
  const services = [counting(false, 3), counting(false, 19), counting()];
  try {
    for (const service of services) await service.start();
    assert.deepEqual(await Promise.all(services.map((s) => s.call<number>('niceness'))), [Math.min(19, own + 3), 19, own]);
    assert.equal(getPriority(), own, "this thread's priority is untouched");
  } finally {
    for (const service of services) await service.stop();
  }
});
