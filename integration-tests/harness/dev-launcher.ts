// Runs one of the local launchers in infra/dev (kafka, schema-registry, clickhouse, s3) for the tests and benchmarks,
// each start in a state directory of its own, so that concurrent runs do not share one. The service runs
// detached; if this process exits without stop() (a crash, process.exit), it is killed all the same (the
// processes its pid files name then: a test may have killed it and had the launcher start it again).
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface DevLauncher {
  /** The script under infra/dev. */
  readonly name: 'kafka' | 'schema-registry' | 'clickhouse' | 's3';
  /** The variable that gives the launcher its state directory. */
  readonly stateVariable: string;
  /** The pid files the launcher writes into the state directory, one per process it starts. */
  readonly pidFiles: readonly string[];
}

export interface LaunchedService {
  /** The last line the launcher printed on stdout: the service's address. */
  readonly address: string;
  /** The launcher's state directory, for the files it leaves there (TLS files, further addresses). */
  readonly state: string;
  /** Sends `signal` to the service's processes (those its pid files name now). */
  signal(signal: NodeJS.Signals): void;
  /** Runs another command of the launcher on this state directory (kafka: `resume`); resolves with its stdout. */
  command(name: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startDevLauncher(launcher: DevLauncher, log: (line: string) => void): Promise<LaunchedService> {
  const script = join(import.meta.dirname, '..', '..', 'infra', 'dev', launcher.name);
  const state = await mkdtemp(join(tmpdir(), `flowagg-${launcher.name}-`));
  const env = { ...process.env, [launcher.stateVariable]: state };
  log(`starting infra/dev/${launcher.name} (state ${state})`);
  let stdout: string;
  try {
    ({ stdout } = await run(script, ['start'], { env, maxBuffer: 16 * 2 ** 20 }));
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    await rm(state, { recursive: true, force: true });
    throw new Error(`infra/dev/${launcher.name} start failed: ${stderr.trim() || (err as Error).message}`, { cause: err });
  }
  const signal = (sig: NodeJS.Signals) => {
    for (const file of launcher.pidFiles) {
      try {
        process.kill(Number(readFileSync(join(state, file), 'utf8')), sig);
      } catch {
        // no pid file, or already gone
      }
    }
  };
  const killOnExit = () => {
    signal('SIGKILL');
    rmSync(state, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);
  return {
    address: stdout.trim().split('\n').pop() ?? '',
    state,
    signal,
    command: async (name) => (await run(script, [name], { env, maxBuffer: 16 * 2 ** 20 })).stdout,
    stop: async () => {
      process.off('exit', killOnExit);
      await run(script, ['stop'], { env }).catch((err: unknown) => log(`stopping infra/dev/${launcher.name} failed: ${(err as Error).message}`));
      await rm(state, { recursive: true, force: true });
    },
  };
}
