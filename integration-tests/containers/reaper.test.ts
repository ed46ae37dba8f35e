// What a crashed test process started does not outlive it: a process starts a container through the
// harness's Testcontainers (whose reaper is flowagg/reaper, infra/images/reaper) and is killed with
// SIGKILL, so nothing of it can stop the container; the reaper removes it once the process's connection
// has been gone for its reconnection timeout.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { until } from '../../lib/testing/until.js';
import { containersForTests, localImage } from '../harness/containers.js';

const docker = promisify(execFile);
const HARNESS = pathToFileURL(join(import.meta.dirname, '..', 'harness', 'containers.ts')).href;

const exists = (id: string) => docker('docker', ['inspect', '--format', '{{.Id}}', id]).then(() => true, () => false);

test('a container of a test process killed with SIGKILL is removed by the reaper', async (t) => {
  const runtime = await containersForTests();
  if (runtime.skip) return t.skip(runtime.skip);
  const image = await localImage('base', () => {});
  const script = `
    const { RUN_LABELS, testcontainers } = await import(${JSON.stringify(HARNESS)});
    const { GenericContainer } = await testcontainers(() => {});
    const c = await new GenericContainer(${JSON.stringify(image)}).withCommand(['sleep', 'infinity']).withLabels(RUN_LABELS).start();
    console.log(c.getId());
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const id = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const line = out.split('\n').find((l) => /^[0-9a-f]{64}$/.test(l.trim()));
      if (line !== undefined) resolve(line.trim());
    });
    child.once('exit', (code) => reject(new Error(`the process exited (${code}) before starting its container`)));
  });
  t.after(() => docker('docker', ['rm', '--force', id]).catch(() => {}));
  assert.ok(await exists(id));
  child.kill('SIGKILL');

  // The reaper waits 10 s (RYUK_RECONNECTION_TIMEOUT) for the process to come back, then removes.
  await until(`container ${id} to be removed once its process was killed`, async () => !(await exists(id)), { timeoutMs: 90_000, intervalMs: 500 });
});
