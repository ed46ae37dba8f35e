// Starting a TypeScript child process for the embedded log's multi-process tests, and waiting for a line.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface Child {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly lines: string[];
  /** Resolves when a stdout line satisfies `match`; rejects if the child exits first. */
  waitForLine(match: (line: string) => boolean): Promise<void>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
}

export function spawnTs(script: string, args: readonly string[]): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: { match: (line: string) => boolean; resolve: () => void; reject: (err: Error) => void }[] = [];
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: proc.stdout }).on('line', (line) => {
    lines.push(line);
    for (const w of waiters.filter((x) => x.match(line))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  // 'close', not 'exit': only then has all of stderr been read.
  const exited = new Promise<void>((resolve) =>
    proc.on('close', (code, signal) => {
      for (const w of waiters.splice(0)) w.reject(new Error(`child ${script} exited (${code ?? signal}) before the expected line; stderr:\n${stderr}`));
      resolve();
    }),
  );
  return {
    proc,
    lines,
    exited,
    waitForLine: (match) =>
      lines.some(match) ? Promise.resolve() : new Promise<void>((resolve, reject) => waiters.push({ match, resolve, reject })),
  };
}
