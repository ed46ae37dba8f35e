// Every shell script of infra/ and .ci/ parses, and passes shellcheck (following what it sources) where
// it is installed (.ci/run installs it): these scripts start engines and brokers in CI, where a quoting slip costs a whole run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { type Dirent, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const repo = join(import.meta.dirname, '..');

function shellScripts(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Dirent[])
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .filter((path) => /^(#!\/usr\/bin\/env bash|# shellcheck shell=bash)\n/.test(readFileSync(path, 'utf8')));
}

const scripts = [...shellScripts(join(repo, 'infra')), ...shellScripts(join(repo, '.ci'))];

test('the shell scripts are found', () => {
  for (const name of ['infra/dev/kafka', 'infra/dev/docker', 'infra/dev/daemon.sh', 'infra/images/build', '.ci/run']) assert.ok(scripts.map((s) => relative(repo, s)).includes(name), name);
});

for (const script of scripts) {
  test(`${relative(repo, script)} parses and passes shellcheck`, (t) => {
    const parse = spawnSync('bash', ['-n', script], { encoding: 'utf8' });
    assert.equal(parse.status, 0, parse.stderr);
    const check = spawnSync('shellcheck', ['--external-sources', script], { encoding: 'utf8' });
    if (check.error !== undefined) return t.skip('shellcheck is not installed');
    assert.equal(check.status, 0, check.stdout);
  });
}
