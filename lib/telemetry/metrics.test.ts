import assert from 'node:assert/strict';
import { test } from 'node:test';
import { registry } from './metrics.js';

test("the process's own metrics say flowagg once: flowagg_process_cpu_user_seconds_total, flowagg_nodejs_*", async () => {
  const names = (await registry.getMetricsAsJSON()).map((m) => m.name);
  assert.ok(names.includes('flowagg_process_cpu_user_seconds_total'));
  assert.ok(names.some((n) => n.startsWith('flowagg_nodejs_')));
  assert.deepEqual(names.filter((n) => /flowagg_process_process_|flowagg_process_nodejs_/.test(n)), []);
});
