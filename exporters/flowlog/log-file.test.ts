import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, describe, it } from 'node:test';
import { componentLogger } from '../../lib/telemetry/logger.js';
import { backupName, listBackups, millBackups } from './backups.js';
import { LineBuffer } from '../row/line-buffer.js';
import { LogFile, statePath } from './log-file.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempLog(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-flowlog-'));
  dirs.push(dir);
  return join(dir, 'flows.log');
}

const logger = componentLogger('test');
const texts = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => String(from + i).padStart(9, '0'));
function lines(from: number, to: number): LineBuffer {
  const b = new LineBuffer();
  texts(from, to).forEach((t, i) => b.push(from + i, `${t}\n`));
  return b;
}

function open(path: string, over: Partial<Parameters<typeof LogFile.open>[0]> = {}) {
  let t = Date.parse('2026-12-01T10:00:00.000Z');
  return LogFile.open({ path, maxBytes: 1000, maxBackups: 0, maxAgeMs: 0, compress: false, logger, now: () => (t += 1000), ...over });
}

/** Every line of the log and its backups, oldest first. */
async function everything(path: string): Promise<string[]> {
  const backups = (await listBackups(path)).reverse();
  const texts = backups.map((b) => (b.compressed ? gunzipSync(readFileSync(b.path)).toString() : readFileSync(b.path, 'utf8')));
  return [...texts, readFileSync(path, 'utf8')].join('').split('\n').filter((l) => l !== '');
}

describe('flow log file', () => {
  it('appends durably and records the next offset per partition', async () => {
    const path = tempLog();
    const f = await open(path);
    const r = await f.append('t/0', lines(0, 5), 5);
    assert.deepEqual(r, { skipped: 0, bytes: 50, rotations: 0 });
    await f.append('t/1', lines(100, 102), 103);
    assert.equal(f.nextOffset('t/0'), 5);
    assert.equal(f.nextOffset('t/1'), 103);
    await f.close();
    assert.equal(statSync(path).size, 70);
    assert.equal(JSON.parse(readFileSync(statePath(path), 'utf8')).size, 70);
  });

  it('rotates before a line would pass maxSize, between lines, into lumberjack names', async () => {
    const path = tempLog();
    const f = await open(path);
    const r = await f.append('t/0', lines(0, 250), 250); // 2500 bytes, 1000 per file
    assert.equal(r.rotations, 2);
    await f.close();
    const backups = await listBackups(path);
    assert.equal(backups.length, 2);
    assert.match(backups[0]!.path, /flows-2026-12-01T10-00-\d\d\.\d{3}\.log$/);
    for (const b of backups) assert.equal(statSync(b.path).size, 1000);
    assert.deepEqual(await everything(path), texts(0, 250));
  });

  it('keeps maxBackups rotated files, gzip-compressed', async () => {
    const path = tempLog();
    const f = await open(path, { maxBackups: 2, compress: true });
    await f.append('t/0', lines(0, 500), 500); // 5000 bytes: 4 rotations
    await f.close();
    const backups = await listBackups(path);
    assert.equal(backups.length, 2);
    assert.ok(backups.every((b) => b.compressed && b.path.endsWith('.log.gz')));
    // The newest two backups and the current file hold the last 300 lines.
    assert.deepEqual(await everything(path), texts(200, 500));
  });

  it('removes rotated files older than maxAge', async () => {
    const path = tempLog();
    const old = backupName(path, Date.parse('2026-11-01T00:00:00.000Z'));
    const recent = backupName(path, Date.parse('2026-11-30T00:00:00.000Z'));
    writeFileSync(old, 'a\n');
    writeFileSync(recent, 'b\n');
    utimesSync(old, new Date(), new Date());
    const removed = await millBackups(path, { maxBackups: 0, maxAgeMs: 7 * 86_400_000, compress: false }, Date.parse('2026-12-01T00:00:00.000Z'));
    assert.deepEqual(removed, [old]);
    assert.ok(existsSync(recent));
  });

  it('after a crash mid-append, cuts off the unrecorded lines so the redelivered batch is written once', async () => {
    const path = tempLog();
    const f = await open(path);
    await f.append('t/0', lines(0, 10), 10);
    await f.close();
    appendFileSync(path, '0000000010\n0000000011\n00000'); // an append whose state was never recorded
    const g = await open(path);
    assert.equal(g.size, 100);
    await g.append('t/0', lines(10, 20), 20);
    await g.close();
    assert.deepEqual(await everything(path), texts(0, 20));
  });

  it('skips the records of a redelivered batch that are already in the log', async () => {
    const path = tempLog();
    const f = await open(path);
    await f.append('t/0', lines(0, 10), 10);
    await f.close();
    const g = await open(path);
    const again = await g.append('t/0', lines(0, 10), 10); // committed offsets lost, same batch again
    const overlap = await g.append('t/0', lines(5, 15), 15);
    await g.close();
    assert.equal(again.skipped, 10);
    assert.equal(overlap.skipped, 5);
    assert.deepEqual(await everything(path), texts(0, 15));
  });

  it('after a crash between a rotation and its record, starts the new file empty and loses nothing', async () => {
    const path = tempLog();
    const f = await open(path);
    await f.append('t/0', lines(0, 50), 50);
    await f.close();
    renameSync(path, backupName(path, Date.parse('2026-12-01T09:00:00.000Z'))); // the rename happened, the state write did not
    const g = await open(path);
    assert.equal(g.size, 0);
    await g.append('t/0', lines(50, 60), 60);
    await g.close();
    assert.deepEqual(await everything(path), texts(0, 60));
    assert.equal(readdirSync(join(path, '..')).filter((n) => n.endsWith('.tmp')).length, 0);
  });
});
