// The directory lock: an exclusive flock(2) on `<dir>/.lock`, which the kernel releases when the holder dies,
// however it dies. A pid written in a file is not enough: a container restarted after a SIGKILL or an
// out-of-memory kill usually gets the same pid back (often 1), so a pid that is alive proves nothing, and taking
// over a "stale" file is a race two processes can both win. A kernel lock has neither problem, and two live
// processes can never both hold it.
//
// Node has no flock, so a helper holds it: util-linux's `flock --no-fork` takes the lock without waiting and
// becomes `cat`, reading a pipe from this process. When this process exits or is killed, the pipe closes, cat
// exits and the kernel drops the lock. The file itself is never deleted (deleting a flock'ed file lets a second
// process lock a new file of the same name while the first still holds the old one); it names the holder's pid,
// for the error message only. Within one process a second open of the same directory is refused at once.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FlowaggError } from '../../errors.js';
import { LOG_LOCK_UNAVAILABLE, LOG_LOCKED } from '../errors.js';

/** flock's exit code when the lock is held by someone else. */
const CONFLICT = 75;

/** Directories this process holds. */
const held = new Set<string>();

export interface DirLock {
  release(): void;
}

export interface LockOptions {
  /**
   * How long to keep trying while the lock file names a process that is gone (or this one): its lock is on the
   * way out, as the kernel reaps it. A live holder is refused at once. Default 5 s.
   */
  readonly deadHolderWaitMs?: number;
}

export async function lockDirectory(dir: string, opts: LockOptions = {}): Promise<DirLock> {
  const path = join(resolve(dir), '.lock');
  if (held.has(path)) throw locked(dir, path, 'this process (the log is already open)', process.pid);
  const deadline = Date.now() + (opts.deadHolderWaitMs ?? 5000);
  for (;;) {
    const helper = await takeLock(path);
    if (helper !== undefined) {
      held.add(path);
      fs.writeFileSync(path, `${process.pid}\n`);
      return { release: () => releaseLock(path, helper) };
    }
    const holder = readHolder(path);
    const gone = holder === undefined || holder === process.pid || !isAlive(holder);
    if (!gone || Date.now() >= deadline) {
      throw locked(dir, path, holder === undefined || gone ? 'another process' : `process ${holder}`, holder);
    }
    await sleep(20);
  }
}

/** Runs the helper; resolves with it once it holds the lock, or undefined when someone else holds it. */
function takeLock(path: string): Promise<ChildProcess | undefined> {
  return new Promise((resolvePromise, reject) => {
    const helper = spawn('flock', ['--exclusive', '--nonblock', '--no-fork', '--conflict-exit-code', String(CONFLICT), path, 'sh', '-c', 'echo locked && exec cat >/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    helper.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    helper.once('error', (err) =>
      reject(new FlowaggError(LOG_LOCK_UNAVAILABLE, `cannot lock ${path}: flock(1) from util-linux is needed (${err.message})`, { context: { path }, cause: err })),
    );
    const onExit = (code: number | null) => {
      if (code === CONFLICT) resolvePromise(undefined);
      else reject(new FlowaggError(LOG_LOCK_UNAVAILABLE, `cannot lock ${path}: flock exited with ${code}: ${stderr.trim()}`, { context: { path } }));
    };
    helper.once('exit', onExit);
    helper.stdout.once('data', () => {
      helper.off('exit', onExit);
      helper.stdout.destroy();
      helper.stderr.destroy();
      // Neither the helper nor its pipe keep this process alive; when it exits, the pipe closes and the lock goes.
      helper.unref();
      (helper.stdin as unknown as { unref(): void }).unref();
      helper.once('exit', () => {
        if (held.has(path)) process.emitWarning(`the helper holding the embedded log lock ${path} exited: the directory is no longer locked`);
      });
      resolvePromise(helper);
    });
  });
}

function releaseLock(path: string, helper: ChildProcess): void {
  if (!held.delete(path)) return;
  helper.kill('SIGKILL');
}

function readHolder(path: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(path, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function locked(dir: string, path: string, who: string, pid: number | undefined): FlowaggError {
  return new FlowaggError(LOG_LOCKED, `embedded log directory ${dir} is locked by ${who}; lock file ${path}`, { context: { dir, ...(pid !== undefined && { pid }) } });
}
