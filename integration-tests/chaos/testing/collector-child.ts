// The chaos test's IPFIX collector, a process of its own: a TCP collector on a fixed port (the exporter's
// flowCollector.address) that appends every message it receives to a file, each after the number of its
// session (run × 65536 + the run's session), so that the test decodes session by session. SIGTERM is a
// graceful stop, as a collector's restart: no new sessions, the open ones read to their end, the file
// written out, exit 0. Prints "listening" once the port is bound.
//   node --import tsx collector-child.ts <port> <file> <run>
import { openSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTcpCollector } from '../../harness/collector.js';

const [port, file, run] = [Number(process.argv[2]), process.argv[3]!, Number(process.argv[4])];
/** The port, once free: another test's port search may be holding it for a moment as the collector restarts. */
async function listen(): Promise<Awaited<ReturnType<typeof startTcpCollector>>> {
  for (let tries = 1; ; tries++) {
    try {
      return await startTcpCollector('127.0.0.1', { port });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || tries === 50) throw err;
      await sleep(200);
    }
  }
}
const collector = await listen();
const fd = openSync(file, 'a');
let written = 0;
const flush = () => {
  for (; written < collector.messages.length; written++) {
    const m = collector.messages[written]!;
    const session = Buffer.alloc(4);
    session.writeUInt32BE(run * 65536 + m.session);
    writeSync(fd, Buffer.concat([session, m.bytes]));
  }
};
const timer = setInterval(flush, 100);
process.once('SIGTERM', () => {
  clearInterval(timer);
  void collector.drainAndClose(5000).then(() => {
    flush();
    process.exit(0);
  });
});
process.stdout.write('listening\n');
