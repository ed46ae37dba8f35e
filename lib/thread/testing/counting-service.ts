// A service for threaded-service.test.ts, on a worker thread: it counts calls in a counter of this
// thread's registry, becomes ready once told, says its logger's level and its thread's nice value, and can
// make its thread die.
import { getPriority } from 'node:os';
import { FlowaggError } from '../../errors.js';
import { Lifecycle } from '../../service/lifecycle.js';
import { rootLogger } from '../../telemetry/logger.js';
import { componentMetrics } from '../../telemetry/metrics.js';
import type { ThreadMain } from '../boot.js';
import { hostService } from '../service-host.js';

const counted = componentMetrics('thread_test').counter('calls_total', 'Calls counted by the test service on its thread');
const main: ThreadMain<{ readonly failStart: boolean }> = (data) => hostService(async () => {
  const lifecycle = new Lifecycle('counting', 'FLOWAGG_ERR_TEST_STATE', rootLogger);
  let ready = false;
  const service = {
    name: 'counting',
    get state() {
      return lifecycle.state;
    },
    start: () => lifecycle.start(async () => {
      if (data.failStart) throw new FlowaggError('FLOWAGG_ERR_TEST_START', 'told to fail its start', { retriable: true, context: { why: 'test' } });
    }, async () => {}),
    stop: () => lifecycle.stop(async () => {}),
    readiness: () => lifecycle.readiness(() => (ready ? { ready: true } : { ready: false, detail: 'not told yet' })),
    onFailure: (listener: (err: unknown) => void) => lifecycle.onFailure(listener),
  };
  return {
    service,
    calls: {
      count: (n: number) => {
        counted.inc(n);
        return n * 2;
      },
      ready: () => void (ready = true),
      level: () => rootLogger.level,
      niceness: () => getPriority(),
      fail: () => lifecycle.fail(new FlowaggError('FLOWAGG_ERR_TEST_FAILED', 'told to fail')),
      die: () => setImmediate(() => process.exit(3)),
    },
  };
});
export default main;
