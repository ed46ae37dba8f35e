import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { isFlowaggError } from '../errors.js';
import { loadConfig, schemaPaths } from './load.js';
import { byteSize, duration, parseDuration } from './types.js';

test('Go durations parse to milliseconds', () => {
  assert.equal(parseDuration('90s'), 90_000);
  assert.equal(parseDuration('1m30s'), 90_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('2h'), 7_200_000);
  assert.equal(parseDuration('1.5s'), 1500);
  assert.equal(parseDuration('90'), undefined);
  assert.equal(parseDuration('s'), undefined);
  assert.equal(parseDuration('10 s'), undefined);
});

const schema = z.strictObject({
  timeout: duration.default(60_000),
  log: z.strictObject({ dir: z.string().default('data'), maxBytes: byteSize.default(1024) }).prefault({}),
});

test('defaults apply, and the result is frozen', () => {
  const cfg = loadConfig(schema, { env: {} });
  assert.deepEqual(cfg, { timeout: 60_000, log: { dir: 'data', maxBytes: 1024 } });
  assert.ok(Object.isFrozen(cfg.log));
});

test('environment overrides reach nested and camelCase keys', () => {
  const cfg = loadConfig(schema, { env: { FLOWAGG_CFG_LOG_MAXBYTES: '64MiB', FLOWAGG_CFG_TIMEOUT: '5s' } });
  assert.equal(cfg.log.maxBytes, 64 * 1024 * 1024);
  assert.equal(cfg.timeout, 5000);
  assert.deepEqual(schemaPaths(schema), ['timeout', 'log.dir', 'log.maxBytes']);
});

test('every problem is reported at once with its path', () => {
  assert.throws(
    () => loadConfig(schema, { env: {}, overrides: { timeout: 'soon', 'log.maxBytes': 'lots', 'log.extra': 1 } }),
    (err: unknown) => {
      assert.ok(isFlowaggError(err, 'FLOWAGG_ERR_CONFIG_INVALID'));
      assert.match(err.message, /timeout: "soon" is not a duration/);
      assert.match(err.message, /log\.maxBytes: "lots" is not a size/);
      assert.match(err.message, /log: Unrecognized key: "extra"/);
      return true;
    },
  );
});

test('an unknown FLOWAGG_CFG_ variable is an error, not ignored', () => {
  assert.throws(() => loadConfig(schema, { env: { FLOWAGG_CFG_NOPE: '1' } }), /FLOWAGG_CFG_NOPE names no configuration key/);
});
