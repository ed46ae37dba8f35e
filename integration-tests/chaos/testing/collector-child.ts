// The chaos test's IPFIX collector, a process of its own: a TCP collector on a fixed port (the exporter's
// flowCollector.address) that appends every message it receives to a file, each after the number of its
// session (run × 65536 + the run's session), so that the test decodes session by session. With `stamped`,
// each message is preceded by the moment it arrived too (8 bytes, ms since the epoch), for the end-to-end
// benchmark's latency. SIGTERM is a graceful stop, as a collector's restart: no new sessions, the open
// ones read to their end, the file written out, exit 0. Prints "listening" once the port is bound. It
// keeps nothing once written, so that a long run's collector stays small.
//   node --import tsx collector-child.ts <port> <file> <run> [stamped]
import { openSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { type CollectedMessage, startTcpCollector } from '../../harness/collector.js';

const [port, file, run] = [Number(process.argv[2]), process.argv[3]!, Number(process.argv[4])];
const stamped = process.argv[5] === 'stamped';
const pending: Buffer[] = [];
const onMessage = (m: CollectedMessage) => {
  const head = Buffer.alloc(stamped ? 12 : 4);
  if (stamped) head.writeDoubleBE(Date.now());
  head.writeUInt32BE(run * 65536 + m.session, stamped ? 8 : 0);
  pending.push(head, m.bytes);
};
/** The port, once free: another test's port search may be holding it for a moment as the collector restarts. */
async function listen(): Promise<Awaited<ReturnType<typeof startTcpCollector>>> {
  for (let tries = 1; ; tries++) {
    try {
      return await startTcpCollector('127.0.0.1', { port, onMessage });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || tries === 50) throw err;
      await sleep(200);
    }
  }
}
const collector = await listen();
const fd = openSync(file, 'a');
const flush = () => {
  if (pending.length > 0) writeSync(fd, Buffer.concat(pending.splice(0)));
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
