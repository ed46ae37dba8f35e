import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readConfig } from '../../../lib/config/load.js';
import { runMain } from '../testing/run-main.js';
import { checkConfig, printDefaults } from './config.js';
import { serviceConfigSchema } from '../../service-config.js';

const ANTREA_CONF = new URL('../../../lib/config/testdata/antrea-flow-aggregator.conf', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'flowagg-config-cmd-'));

function run(fn: (out: (s: string) => void) => number): { code: number; out: string } {
  let out = '';
  const code = fn((s) => void (out += s));
  return { code, out };
}

const args = (positionals: string[], values: Record<string, string | boolean> = {}) => ({ positionals, values });

test('config check: exit 0 for a valid file, with its notices; 1 for an invalid one; -o json for scripts', () => {
  const good = run((out) => checkConfig(args(['check', ANTREA_CONF]), out, {}));
  assert.equal(good.code, 0);
  // Every Antrea service is built: the one notice is recordBufferSize's (accepted and unused).
  assert.match(good.out, /antrea-flow-aggregator\.conf: valid \(0 errors, 0 warnings, 1 notices\)\n$/);

  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, 'ingest:\n  port: 99999\n');
  const json = run((out) => checkConfig(args(['check', bad], { output: 'json' }), out, {}));
  assert.equal(json.code, 1);
  const parsed = JSON.parse(json.out) as { valid: boolean; diagnostics: { level: string; path: string; message: string; source: string }[] };
  assert.equal(parsed.valid, false);
  assert.deepEqual(parsed.diagnostics, [{ level: 'error', path: 'ingest.port', message: '99999 is too large: at most 65535', source: `${bad}:2` }]);
});

test('config check --strict fails on a warning; an unreadable file is a failure, not a crash', () => {
  const typo = join(dir, 'typo.yaml');
  writeFileSync(typo, 'flowColector: {}\n');
  assert.equal(run((out) => checkConfig(args(['check', typo]), out, {})).code, 0);
  const strict = run((out) => checkConfig(args(['check', typo], { strict: true }), out, {}));
  assert.equal(strict.code, 1);
  assert.match(strict.out, /did you mean flowCollector\?/);
  const missing = run((out) => checkConfig(args(['check', join(dir, 'nope.yaml')]), out, {}));
  assert.equal(missing.code, 1);
  assert.match(missing.out, /cannot read .*nope\.yaml/);
});

test('config defaults prints YAML that loads back to the defaults, with descriptions as comments', () => {
  const { code, out } = run((o) => printDefaults(args(['defaults']), o));
  assert.equal(code, 0);
  assert.match(out, /# The API server's port \(Antrea's apiServer port\)/);
  assert.match(out, /templateTtl: 30m\n/);
  const back = readConfig(serviceConfigSchema, { file: 'defaults.yaml', text: out, env: {} });
  assert.ok(back.ok, JSON.stringify(back.diagnostics));
  assert.deepEqual(back.diagnostics, []);
  assert.deepEqual(back.config, serviceConfigSchema.parse({}));
});

test('config: a wrong command line exits 2', async () => {
  assert.equal((await runMain(['config'])).code, 2);
  assert.equal((await runMain(['config', 'lint'])).code, 2);
  assert.equal((await runMain(['config', 'check'])).code, 2);
  assert.equal((await runMain(['config', 'defaults', '-o', 'xml'])).code, 2);
});
