// The directory lock: a second process, or a second open in this process, is refused with an error that
// names the holder's pid; the lock of a killed process is stale and taken over.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isFlowaggError } from '../../errors.js';
import { LOG_LOCKED } from '../errors.js';
import { openEmbeddedLog } from './index.js';
import { spawnTs } from './testing/spawn.js';

test('a second process cannot open a locked directory; the error names the holder\'s pid', { timeout: 60_000 }, async () => {
  const dir = fs.mkdtempSync(join(tmpdir(), 'flowagg-log-lock-'));
  const child = spawnTs(join(import.meta.dirname, 'testing', 'lock-child.ts'), [dir]);
  try {
    await child.waitForLine((l) => l === 'ready');
    const pid = child.proc.pid!;
    await assert.rejects(openEmbeddedLog({ dir }), (err: unknown) => isFlowaggError(err, LOG_LOCKED) && err.message.includes(`process ${pid}`) && err.context.pid === pid);
    child.proc.kill('SIGKILL');
    await child.exited;
    const log = await openEmbeddedLog({ dir });
    assert.equal(fs.readFileSync(join(dir, '.lock'), 'utf8').trim(), String(process.pid), 'the stale lock of the killed process was taken over');
    await log.close();
    assert.ok(!fs.existsSync(join(dir, '.lock')), 'close releases the lock');
  } finally {
    child.proc.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('opening the same directory twice in one process is refused', async () => {
  const dir = fs.mkdtempSync(join(tmpdir(), 'flowagg-log-lock-'));
  const log = await openEmbeddedLog({ dir });
  try {
    await assert.rejects(openEmbeddedLog({ dir }), (err: unknown) => isFlowaggError(err, LOG_LOCKED) && err.message.includes('this process'));
  } finally {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
