// How long `flowagg --help` takes as a whole process (issue 12: under 300 ms compiled), built in a copy
// of the repository with `npm run build`: the compiled program through bin/flowagg.js (what `npm start`
// and an installed `flowagg` run), dist/ run by node directly (what the image runs), and the sources
// through tsx; `node -e 0` is the floor no command can beat. Wall-clock medians of repeated runs: the
// process is short enough that the machine's load shows in the spread, so the load average is noted.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { copyRepository } from '../integration-tests/harness/repo-copy.js';
import type { BenchResult, Benchmark } from './types.js';

const RUNS = 30;
const WARMUP = 3;

function timeRuns(args: string[], cwd: string): { median: number; min: number } {
  const times: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const start = performance.now();
    const r = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = performance.now() - start;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    if (i >= WARMUP) times.push(ms);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)]!, min: times[0]! };
}

const bench: Benchmark = async (log) => {
  const copy = copyRepository();
  try {
    const { root } = copy;
    const sources = timeRuns(['bin/flowagg.js', '--help'], root);
    log('building the copy (npm run build)');
    const build = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
    const cases: [string, string[]][] = [
      ['node -e 0 (the floor)', ['-e', '0']],
      ['flowagg --help, compiled, through bin/flowagg.js', ['bin/flowagg.js', '--help']],
      ['flowagg --help, compiled, node dist/app/cli/main.js (the image)', [join('dist', 'lib', 'cli', 'main.js'), '--help']],
      ['flowagg decode --help, compiled (loads the command)', ['bin/flowagg.js', 'decode', '--help']],
    ];
    const results: BenchResult[] = [];
    for (const [name, args] of cases) {
      const t = timeRuns(args, root);
      const load = loadavg()[0]!.toFixed(1);
      log(`${name}: median ${t.median.toFixed(0)} ms, min ${t.min.toFixed(0)} ms (load ${load})`);
      results.push({ name, value: t.median, unit: 'ms (median)', note: `min ${t.min.toFixed(0)} ms of ${RUNS} runs; load average ${load}; target under 300 ms` });
    }
    results.push({ name: 'flowagg --help, sources through tsx', value: sources.median, unit: 'ms (median)', note: `min ${sources.min.toFixed(0)} ms of ${RUNS} runs` });
    return results;
  } finally {
    copy.remove();
  }
};

export default bench;
