// The directory lock: `<dir>/.lock` created with O_EXCL and holding the owner's pid. A lock whose pid is
// no longer alive is stale (its owner was killed) and is taken over; a live holder, or this very process
// (a second open of the same directory), is refused with an error naming the pid.
import fs from 'node:fs';
import { join } from 'node:path';
import { FlowaggError } from '../../errors.js';
import { LOG_LOCKED } from '../errors.js';
import { ioError } from './fs-util.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface DirLock {
  release(): void;
}

export function lockDirectory(dir: string): DirLock {
  const path = join(dir, '.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(path, 'wx');
      fs.writeSync(fd, `${process.pid}\n`);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      return { release: () => fs.rmSync(path, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError('create lock file', path, err);
    }
    let holder = NaN;
    try {
      holder = Number.parseInt(fs.readFileSync(path, 'utf8'), 10);
    } catch {
      // Removed meanwhile, or not written yet: try again.
    }
    if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) {
      const who = holder === process.pid ? 'this process (the log is already open)' : `process ${holder}`;
      throw new FlowaggError(LOG_LOCKED, `embedded log directory ${dir} is locked by ${who}; lock file ${path}`, { context: { dir, pid: holder } });
    }
    // Stale: its owner is gone. A lock file without a pid is a crash between create and write.
    if (Number.isInteger(holder) || attempt > 0) fs.rmSync(path, { force: true });
  }
  throw new FlowaggError(LOG_LOCKED, `embedded log directory ${dir}: could not take the lock file ${path}`, { context: { dir } });
}
