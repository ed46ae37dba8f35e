// The Go programs the interop tests run (integration-tests/go/<name>: the certificate checker, the Antrea-like
// gRPC agent), built once per source version with the machine's Go into node_modules/.cache, so that a test
// run builds each at most once and CI (which builds them in .ci/run) not at all.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext } from 'node:test';
import { requireTools, runTool, type Tool } from './tools.js';

export const GO: Tool = { command: 'go', debianPackage: 'golang-go' };

const ROOT = join(import.meta.dirname, '..', 'go');
const CACHE = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'flowagg-go');

/** Source files of a Go program, generated code included, in a stable order. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(go|mod|sum|proto)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** The executable of integration-tests/go/<name>, built when its sources changed. */
export async function goProgram(name: string): Promise<string> {
  const dir = join(ROOT, name);
  const hash = createHash('sha256');
  for (const f of sources(dir)) hash.update(f).update(readFileSync(f));
  const out = join(CACHE, `${name}-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(out)) return out;
  await mkdir(CACHE, { recursive: true });
  // -mod=mod: the module cache (filled by .ci/run's `go mod download`) rather than a vendor directory.
  await runTool('go', ['build', '-mod=mod', '-o', out, '.'], { cwd: dir, timeoutMs: 300_000, env: { CGO_ENABLED: '0' } });
  return out;
}

/** The program, or undefined after skipping the test (failing it in CI) when Go is missing. */
export async function requireGoProgram(t: TestContext, name: string): Promise<string | undefined> {
  return requireTools(t, GO) ? goProgram(name) : undefined;
}

export interface TlsCheckResult {
  readonly check: 'parse' | 'verify' | 'load' | 'handshake';
  readonly target: string;
  readonly ok: boolean;
  readonly error?: string;
  readonly subject?: string;
  readonly version?: string;
  readonly alpn?: string;
}

export interface TlsCheckOptions {
  readonly ca: string;
  readonly server?: string;
  readonly client?: { readonly cert: string; readonly key: string };
  readonly serverName?: string;
  readonly alpn?: string;
  readonly dial?: readonly string[];
}

/** Runs the Go certificate checker (integration-tests/go/tlscheck) on certificate files; one result per check. */
export async function goTlsCheck(program: string, opts: TlsCheckOptions): Promise<TlsCheckResult[]> {
  const args = ['-ca', opts.ca];
  if (opts.server) args.push('-server', opts.server);
  if (opts.client) args.push('-client', opts.client.cert, '-key', opts.client.key);
  if (opts.serverName) args.push('-servername', opts.serverName);
  if (opts.alpn) args.push('-alpn', opts.alpn);
  for (const d of opts.dial ?? []) args.push('-dial', d);
  const run = await runTool(program, args, { timeoutMs: 60_000, allowFailure: true });
  return run.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as TlsCheckResult);
}
