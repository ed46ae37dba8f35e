// `flowagg decode` as a whole process against ipfixDump (libfixbuf) on the same file: 273,000 records
// of the template softflowd -v 10 sends, in an RFC 5655 file. Issue 12's target: flowagg prints JSON
// lines at least twice as fast as ipfixDump prints its text. Each program runs 3 times, output to
// /dev/null; the figures are records per second of wall time and of CPU time (user + system, from
// /usr/bin/time), best run of each, since other processes on a shared machine take wall time but not
// this process's CPU time. Through tsx (what `npm start` and the tests run) and compiled (dist/, when
// `npm run build` made it).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageEncoder } from '../lib/ipfix/message-encoder.js';
import { softflowdTemplate, softflowdValues } from '../lib/ipfix/testing/templates.js';
import type { BenchResult, Benchmark } from './types.js';

const RECORDS = 273_000;
const RUNS = 3;
const root = fileURLToPath(new URL('..', import.meta.url));

function softflowdFile(path: string): void {
  const t = softflowdTemplate();
  const enc = new MessageEncoder({ observationDomainId: 0, maxMessageSize: 1400, exportTime: () => 1_700_000_000 });
  enc.addTemplate(t);
  for (let i = 0; i < RECORDS; i++) enc.addRecord(t, softflowdValues(i));
  writeFileSync(path, Buffer.concat(enc.flush()));
}

/** Best wall and CPU seconds of RUNS runs of argv, stdout to /dev/null. */
function timeProcess(argv: string[], dir: string): { wall: number; cpu: number } {
  let wall = Infinity;
  let cpu = Infinity;
  const times = join(dir, 'time.txt');
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', '-o', times, 'sh', '-c', `exec "$@" > /dev/null`, 'sh', ...argv], { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}): ${r.stderr.slice(0, 500)}`);
    const [e, u, s] = readFileSync(times, 'utf8').trim().split(/\s+/).slice(-3).map(Number) as [number, number, number];
    wall = Math.min(wall, e);
    cpu = Math.min(cpu, u + s);
  }
  return { wall, cpu };
}

const bench: Benchmark = async (log) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-bench-cli-'));
  try {
    const file = join(dir, 'softflowd-273k.ipfix');
    softflowdFile(file);
    const load = loadavg().map((l) => l.toFixed(2)).join(' ');
    const ipfixDump = timeProcess(['ipfixDump', '--in', file], dir);
    log(`ipfixDump: ${ipfixDump.wall} s wall, ${ipfixDump.cpu.toFixed(2)} s CPU; load average ${load}`);
    const rate = (s: number) => RECORDS / s;
    const results: BenchResult[] = [
      { name: 'ipfixDump text, whole process (wall)', value: rate(ipfixDump.wall), unit: 'records/s', note: `load average ${load}` },
      { name: 'ipfixDump text, whole process (CPU)', value: rate(ipfixDump.cpu), unit: 'records/s', note: `load average ${load}` },
    ];
    const programs: [string, string[]][] = [['tsx', [process.execPath, '--import', 'tsx', 'app/cli/main.ts']]];
    if (existsSync(join(root, 'dist/app/cli/main.js'))) programs.push(['compiled', [process.execPath, 'dist/app/cli/main.js']]);
    else log('dist/ not built (npm run build): the compiled figures are left out');
    for (const [how, argv] of programs) {
      const t = timeProcess([...argv, 'decode', file], dir);
      log(`flowagg decode (${how}): ${t.wall} s wall, ${t.cpu.toFixed(2)} s CPU`);
      results.push(
        { name: `flowagg decode JSON lines, ${how}, whole process (wall)`, value: rate(t.wall), unit: 'records/s', target: 2 * rate(ipfixDump.wall), note: `${RECORDS} softflowd records; target 2 × ipfixDump` },
        { name: `flowagg decode JSON lines, ${how}, whole process (CPU)`, value: rate(t.cpu), unit: 'records/s', target: 2 * rate(ipfixDump.cpu), note: `load average ${load}` },
      );
    }
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export default bench;
