// The `log` configuration section: defaults, units, env overrides and the kafka-section requirement.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { loadConfig } from '../config/load.js';
import { isFlowaggError } from '../errors.js';
import { logConfigSchema } from './config.js';

const root = z.strictObject({ log: logConfigSchema.prefault({}) });

test('an empty log section is the embedded log with durable (fsync always) appends', () => {
  const { log } = root.parse({});
  assert.equal(log.backend, 'embedded');
  assert.deepEqual(log.embedded.fsync, { policy: 'always', interval: 1000 });
  assert.equal(log.embedded.segmentBytes, 256 * 2 ** 20);
  assert.deepEqual(log.embedded.retention, { bytes: null, age: 7 * 24 * 3_600_000 });
});

test('sizes and durations take units, and environment variables override keys', () => {
  const config = loadConfig(root, {
    env: { FLOWAGG_CFG_LOG_EMBEDDED_FSYNC_POLICY: 'interval', FLOWAGG_CFG_LOG_EMBEDDED_DIR: '/var/lib/flowagg/log' },
    overrides: { 'log.embedded.segmentBytes': '64MiB', 'log.embedded.retention.age': '48h', 'log.embedded.fsync.interval': '250ms' },
  });
  assert.equal(config.log.embedded.dir, '/var/lib/flowagg/log');
  assert.deepEqual(config.log.embedded.fsync, { policy: 'interval', interval: 250 });
  assert.equal(config.log.embedded.segmentBytes, 64 * 2 ** 20);
  assert.equal(config.log.embedded.retention.age, 48 * 3_600_000);
});

test('bad values are reported with their path', () => {
  assert.throws(
    () => loadConfig(root, { env: {}, overrides: { 'log.embedded.fsync.policy': 'sometimes', 'log.embedded.segmentBytes': 100 } }),
    (err: unknown) => isFlowaggError(err) && err.message.includes('log.embedded.fsync.policy') && err.message.includes('log.embedded.segmentBytes'),
  );
  assert.throws(() => root.parse({ log: { backend: 'kafka' } }), /log\.kafka/);
});
