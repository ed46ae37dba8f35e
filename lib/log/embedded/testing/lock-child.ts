// Child process of lock.test.ts: opens the log directory, says "ready", and holds it until killed.
//   node --import tsx lock-child.ts <dir>
import { openEmbeddedLog } from '../index.js';

const log = await openEmbeddedLog({ dir: process.argv[2]! });
process.stdout.write('ready\n');
setInterval(() => void log, 60_000);
