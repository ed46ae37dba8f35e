// External programs the interop and ingest tests drive (softflowd, tshark, ...): finding them, skipping or
// failing a test when one is missing, and running one to completion with a hard time limit.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { TestContext } from 'node:test';
import { FlowaggError } from '../../lib/errors.js';

export const HARNESS_TOOL_FAILED = 'FLOWAGG_ERR_HARNESS_TOOL_FAILED';
export const HARNESS_TOOL_TIMEOUT = 'FLOWAGG_ERR_HARNESS_TOOL_TIMEOUT';
export const HARNESS_TOOL_OUTPUT = 'FLOWAGG_ERR_HARNESS_TOOL_OUTPUT';

export interface Tool {
  readonly command: string;
  readonly debianPackage: string;
}

export const SOFTFLOWD: Tool = { command: 'softflowd', debianPackage: 'softflowd' };
export const TSHARK: Tool = { command: 'tshark', debianPackage: 'tshark' };
export const IPFIXDUMP: Tool = { command: 'ipfixDump', debianPackage: 'libfixbuf-tools' };
export const NFCAPD: Tool = { command: 'nfcapd', debianPackage: 'nfdump' };
export const NFDUMP: Tool = { command: 'nfdump', debianPackage: 'nfdump' };
export const CHROMIUM: Tool = { command: 'chromium', debianPackage: 'chromium' };

// Daemons such as softflowd live in sbin, which a non-root PATH often lacks.
const EXTRA_DIRS = ['/usr/local/sbin', '/usr/sbin', '/sbin'];

/** The absolute path of an executable on PATH (or in sbin), or undefined. */
export function findExecutable(command: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...EXTRA_DIRS];
  for (const dir of dirs) {
    const path = join(dir, command);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

function inCi(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/**
 * True when every tool is installed. Otherwise the test is skipped with the reason, or, when the
 * environment variable CI is set, fails naming the Debian packages, so that CI cannot pass by skipping.
 */
export function requireTools(t: TestContext, ...tools: Tool[]): boolean {
  const missing = tools.filter((tool) => findExecutable(tool.command) === undefined);
  if (missing.length === 0) return true;
  const what = missing.map((m) => `${m.command} (Debian package ${m.debianPackage})`).join(', ');
  if (inCi()) assert.fail(`this test needs ${what}; install it (.ci/run does: apt-get install ${missing.map((m) => m.debianPackage).join(' ')})`);
  t.skip(`needs ${what}`);
  return false;
}

export interface ToolRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly timeoutMs: number;
  readonly cwd?: string;
  /** Variables added to the inherited environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Resolve with any exit code instead of failing on a non-zero one. */
  readonly allowFailure?: boolean;
  /** Kills the program (SIGKILL) when aborted, e.g. a test's `t.signal` when the test ends. */
  readonly signal?: AbortSignal;
}

/**
 * Runs a program to completion. It is killed (SIGKILL, that process only) when it outlives timeoutMs,
 * and the promise then rejects with HARNESS_TOOL_TIMEOUT and whatever output it had produced; or when
 * opts.signal aborts, rejecting with HARNESS_TOOL_FAILED.
 */
export function runTool(command: string, args: readonly string[], opts: RunOptions): Promise<ToolRun> {
  const path = findExecutable(command) ?? command;
  return new Promise((resolve, reject) => {
    const child = spawn(path, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'], signal: opts.signal, killSignal: 'SIGKILL' });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    const context = { command: [command, ...args].join(' ') };
    child.on('error', (e) => {
      clearTimeout(timer);
      const what = e.name === 'AbortError' ? 'was aborted' : 'could not be started';
      reject(new FlowaggError(HARNESS_TOOL_FAILED, `${command} ${what}: ${e.message}`, { context, cause: e }));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const run = { exitCode: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
      const tail = `${run.stderr}${run.stdout}`.slice(-2000);
      if (timedOut) {
        reject(new FlowaggError(HARNESS_TOOL_TIMEOUT, `${command} did not finish within ${opts.timeoutMs} ms and was killed; output:\n${tail}`, { context }));
      } else if (code !== 0 && !opts.allowFailure) {
        const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
        reject(new FlowaggError(HARNESS_TOOL_FAILED, `${command} failed with ${how}; output:\n${tail}`, { context }));
      } else resolve(run);
    });
  });
}
