// Child process of lock.test.ts: takes the log directory's lock `rounds` times, racing its siblings. While it
// holds the lock it registers in <holders>/ and checks that nobody else is registered: "overlap" if anyone is.
//   node --import tsx lock-race-child.ts <dir> <holders> <rounds>
import fs from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isFlowaggError } from '../../../errors.js';
import { LOG_LOCKED } from '../../errors.js';
import { lockDirectory } from '../lock.js';

const [dir, holders, rounds] = [process.argv[2]!, process.argv[3]!, Number(process.argv[4])];
const mine = join(holders, String(process.pid));
let taken = 0;
let refused = 0;
while (taken < rounds) {
  let lock;
  try {
    lock = await lockDirectory(dir, { deadHolderWaitMs: 0 });
  } catch (err) {
    if (!isFlowaggError(err, LOG_LOCKED)) throw err;
    refused++;
    await sleep(Math.random() * 5);
    continue;
  }
  fs.writeFileSync(mine, '');
  if (fs.readdirSync(holders).length !== 1) process.stdout.write(`overlap ${fs.readdirSync(holders).join(',')}\n`);
  await sleep(2);
  fs.rmSync(mine);
  lock.release();
  taken++;
  await sleep(Math.random() * 3);
}
process.stdout.write(`done ${taken} ${refused}\n`);
