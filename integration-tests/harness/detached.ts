// The infra/dev launchers start their servers detached (setsid), so a test process that dies without
// stopping one would leave it running: this kills it, and removes its state directory, when the process
// exits. Returns the function that disarms it (after a clean stop). startDevServer runs a launcher so.
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export function killOnExit(pid: number, stateDir: string): () => void {
  const kill = () => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
    rmSync(stateDir, { recursive: true, force: true });
  };
  process.once('exit', kill);
  return () => process.off('exit', kill);
}

export interface DevServer {
  /** The last line the launcher printed on stdout: the server's address. */
  readonly address: string;
  readonly stateDir: string;
  stop(): Promise<void>;
}

/**
 * Starts `infra/dev/<name>` in a state directory of its own (the launcher's `<STATE_VAR>` environment
 * variable), killed if this process exits without stop().
 */
export async function startDevServer(name: string, stateVar: string, pidFile: string, log: (line: string) => void): Promise<DevServer> {
  const launcher = join(import.meta.dirname, '..', '..', 'infra', 'dev', name);
  const state = await mkdtemp(join(tmpdir(), `flowagg-${name}-`));
  const env = { ...process.env, [stateVar]: state };
  log(`starting a local server with infra/dev/${name} (state ${state})`);
  let stdout: string;
  try {
    ({ stdout } = await run(launcher, ['start'], { env }));
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    await rm(state, { recursive: true, force: true });
    throw new Error(`infra/dev/${name} start failed: ${stderr.trim() || (err as Error).message}`, { cause: err });
  }
  const disarm = killOnExit(Number(await readFile(join(state, pidFile), 'utf8')), state);
  return {
    address: stdout.trim().split('\n').pop() ?? '',
    stateDir: state,
    stop: async () => {
      disarm();
      await run(launcher, ['stop'], { env }).catch((err: unknown) => log(`stopping the local ${name} server failed: ${(err as Error).message}`));
      await rm(state, { recursive: true, force: true });
    },
  };
}
