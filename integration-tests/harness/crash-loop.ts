// Runs a flowagg command as a child process (bin/flowagg.js, as an operator would) and kills it with
// SIGKILL at random moments: each run is killed a random time after it logged that it is running
// (`readyMessage`), so kills land before, during and after deliveries. Deterministic from a seed, which
// the caller prints, so that a failing sequence can be replayed.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { seededRandom } from '../../lib/prng.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'flowagg.js');

export interface FlowaggChild {
  readonly process: ChildProcess;
  /** Resolves when the child logs readyMessage; rejects if it exits first. */
  readonly ready: Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What the child wrote on stderr (its logs), for failure messages. */
  stderr(): string;
}

/** `cwd`: where it runs (`flowagg run`'s data directory is ./data); the test's own by default. */
export function startFlowagg(argv: readonly string[], readyMessage: string, env: NodeJS.ProcessEnv = {}, cwd?: string): FlowaggChild {
  const child = spawn(process.execPath, [BIN, ...argv], { cwd, env: { ...process.env, FLOWAGG_LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
      if (err.length > 1_000_000) err = err.slice(-500_000);
      if (err.includes(readyMessage)) resolve();
    });
    void exited.then(({ code, signal }) => reject(new Error(`flowagg ${argv.join(' ')} exited (${code ?? signal}) before "${readyMessage}":\n${err.slice(-4000)}`)));
  });
  ready.catch(() => {});
  return { process: child, ready, exited, stderr: () => err };
}

export interface CrashLoopResult {
  readonly kills: number;
  /** When each kill happened, in ms after the run said it was ready. */
  readonly delaysMs: readonly number[];
  /** What the killed runs wrote on stderr, one string per run. */
  readonly logs: readonly string[];
}

/** Starts the command `kills` times, killing each run with SIGKILL up to `maxDelayMs` after it is ready. */
export async function crashLoop(argv: readonly string[], readyMessage: string, opts: { kills: number; maxDelayMs: number; seed: number; env?: NodeJS.ProcessEnv }): Promise<CrashLoopResult> {
  const random = seededRandom(opts.seed);
  const delaysMs: number[] = [];
  const logs: string[] = [];
  for (let k = 0; k < opts.kills; k++) {
    const child = startFlowagg(argv, readyMessage, opts.env);
    await child.ready;
    const delay = Math.floor(random() * opts.maxDelayMs);
    delaysMs.push(delay);
    await new Promise((r) => setTimeout(r, delay));
    child.process.kill('SIGKILL');
    await child.exited;
    logs.push(child.stderr());
  }
  return { kills: opts.kills, delaysMs, logs };
}
