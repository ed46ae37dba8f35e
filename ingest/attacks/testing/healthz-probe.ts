// Child process of the attack tests: asks GET /healthz every `intervalMs` and times each answer, from its own
// process, so that the attacker's work in the test process does not show in the figures. Runs until its
// stdin closes or says "stop", then prints one JSON line: the latencies' count, 99th percentile and maximum
// in ms, and the requests that failed or took longer than 2 s.
//
// It also measures how much the machine itself slows a process down: between requests it burns 2 ms of CPU
// and times that in wall time. `slowdown` is the median ratio (1 on a machine with a core to spare; more
// where other work competes for the CPUs), by which a latency bound stated for a free machine is scaled.
//   node --import tsx healthz-probe.ts <port> <intervalMs>
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { quantile } from '../../../lib/testing/quantile.js';

const [port, intervalMs] = [Number(process.argv[2]), Number(process.argv[3] ?? 20)];
const latencies: number[] = [];
const slowdowns: number[] = [];
let failures = 0;

function burn(cpuMs: number): void {
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  for (;;) {
    const c = process.cpuUsage(c0);
    if (c.user + c.system >= cpuMs * 1000) break;
  }
  slowdowns.push((performance.now() - w0) / cpuMs);
}
let stopping = false;

function probe(): Promise<void> {
  return new Promise((resolve) => {
    const start = performance.now();
    const req = request({ host: '127.0.0.1', port, path: '/healthz', timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) latencies.push(performance.now() - start);
        else failures++;
        resolve();
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => {
      failures++;
      resolve();
    });
    req.end();
  });
}

createInterface({ input: process.stdin }).on('line', () => (stopping = true)).on('close', () => (stopping = true));
process.stdout.write('probing\n');
while (!stopping) {
  const next = performance.now() + intervalMs;
  await probe();
  burn(2);
  await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
}
const p99 = quantile(latencies, 0.99);
const slowdown = [...slowdowns].sort((a, b) => a - b)[Math.floor(slowdowns.length / 2)] ?? 1;
process.stdout.write(`${JSON.stringify({ count: latencies.length, p99, max: latencies.length === 0 ? NaN : latencies.reduce((a, b) => Math.max(a, b)), failures, slowdown })}\n`);
