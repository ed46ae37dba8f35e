// The directory lock (an flock the kernel releases when the holder dies): a second process, or a second open in
// this process, is refused with an error that names the holder's pid; a killed holder's lock is gone at once,
// whatever pid its lock file names; two processes racing for it never both hold it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isFlowaggError } from '../../errors.js';
import { LOG_LOCKED } from '../errors.js';
import { openEmbeddedLog } from './index.js';
import { lockDirectory } from './lock.js';
import { spawnTs } from './testing/spawn.js';

const tempDir = () => fs.mkdtempSync(join(tmpdir(), 'flowagg-log-lock-'));

test('a second process cannot open a locked directory; the error names the holder\'s pid', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const child = spawnTs(join(import.meta.dirname, 'testing', 'lock-child.ts'), [dir]);
  try {
    await child.waitForLine((l) => l === 'ready');
    const pid = child.proc.pid!;
    await assert.rejects(openEmbeddedLog({ dir }), (err: unknown) => isFlowaggError(err, LOG_LOCKED) && err.message.includes(`process ${pid}`) && err.context.pid === pid);
    child.proc.kill('SIGKILL');
    await child.exited;
    const log = await openEmbeddedLog({ dir });
    assert.equal(fs.readFileSync(join(dir, '.lock'), 'utf8').trim(), String(process.pid), 'the killed process\'s lock was released by the kernel');
    await log.close();
    const next = spawnTs(join(import.meta.dirname, 'testing', 'lock-child.ts'), [dir]);
    await next.waitForLine((l) => l === 'ready');
    next.proc.kill('SIGKILL');
    await next.exited;
  } finally {
    child.proc.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('opening the same directory twice in one process is refused', async () => {
  const dir = tempDir();
  const log = await openEmbeddedLog({ dir });
  try {
    await assert.rejects(openEmbeddedLog({ dir }), (err: unknown) => isFlowaggError(err, LOG_LOCKED) && err.message.includes('this process'));
  } finally {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a stale lock file naming this process, or pid 1 (a restarted container), opens', async () => {
  for (const pid of [process.pid, 1]) {
    const dir = tempDir();
    try {
      fs.writeFileSync(join(dir, '.lock'), `${pid}\n`);
      const log = await openEmbeddedLog({ dir });
      await log.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('four processes racing for the lock never hold it at once', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const holders = join(dir, 'holders');
  fs.mkdirSync(holders);
  fs.writeFileSync(join(dir, '.lock'), '1\n');
  const children = Array.from({ length: 4 }, () => spawnTs(join(import.meta.dirname, 'testing', 'lock-race-child.ts'), [dir, holders, '15']));
  try {
    await Promise.all(children.map((c) => c.waitForLine((l) => l.startsWith('done'))));
    const lines = children.flatMap((c) => c.lines);
    assert.deepEqual(lines.filter((l) => l.startsWith('overlap')), []);
    const refused = lines.filter((l) => l.startsWith('done')).reduce((n, l) => n + Number(l.split(' ')[2]), 0);
    assert.ok(refused > 0, 'the processes did contend for the lock');
  } finally {
    for (const c of children) c.proc.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('release lets the next open in this process take the lock at once', async () => {
  const dir = tempDir();
  try {
    for (let i = 0; i < 5; i++) (await lockDirectory(dir)).release();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
