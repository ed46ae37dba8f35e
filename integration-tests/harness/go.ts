// The Go programs the interop tests run (integration-tests/go/<name>: the certificate checker, the Antrea-like
// gRPC agent), built once per source version with the machine's Go into node_modules/.cache, so that a test
// run builds each at most once and CI (which builds them in .ci/run) not at all.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, delimiter, join, sep } from 'node:path';
import type { TestContext } from 'node:test';
import { findExecutable, requireTools, runTool, type Tool } from './tools.js';

export const GO: Tool = { command: 'go', debianPackage: 'golang-go' };

// These machines' Go toolchain lives in /usr/local/go/bin, which a PATH may lack (CI's does).
const LOCAL_GO = '/usr/local/go/bin';
if (findExecutable('go') === undefined && existsSync(join(LOCAL_GO, 'go'))) process.env.PATH = `${process.env.PATH ?? ''}${delimiter}${LOCAL_GO}`;

const ROOT = join(import.meta.dirname, '..', 'go');
const REPO = join(import.meta.dirname, '..', '..');
const CACHE = join(REPO, 'node_modules', '.cache', 'flowagg-go');
const PROTO_DIR = join(REPO, 'schemas', 'proto');
const PROTO_FILES = ['flow.proto', 'service.proto'];
/** The code generators, at the versions Antrea generates with (reference §0); .ci/run installs the same. */
const PLUGINS = ['google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12', 'google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2'];
export const PROTOC: Tool = { command: 'protoc', debianPackage: 'protobuf-compiler' };

/** Source files of a Go program, generated code included, in a stable order. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(go|mod|sum|proto)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/**
 * Generates the Go code of flowagg's .proto files (schemas/proto) into <dir>/flowpb with protoc and the Go
 * plugins, installing the plugins through the Go module proxy when they are missing.
 */
async function generateProto(dir: string): Promise<void> {
  const gobin = join((await runTool('go', ['env', 'GOPATH'], { timeoutMs: 30_000 })).stdout.trim(), 'bin');
  for (const plugin of PLUGINS) {
    const command = plugin.slice(plugin.lastIndexOf('/') + 1, plugin.indexOf('@'));
    if (!existsSync(join(gobin, command))) await runTool('go', ['install', plugin], { timeoutMs: 300_000 });
  }
  const mapping = PROTO_FILES.map((f) => `M${f}=flowagg.test/${basename(dir)}/flowpb`).join(',');
  await mkdir(join(dir, 'flowpb'), { recursive: true });
  await runTool('protoc', [
    '-I', PROTO_DIR, '-I', '/usr/include',
    '--go_out=flowpb', `--go_opt=paths=source_relative,${mapping}`,
    '--go-grpc_out=flowpb', `--go-grpc_opt=paths=source_relative,${mapping}`,
    ...PROTO_FILES,
  ], { cwd: dir, timeoutMs: 60_000, env: { PATH: `${gobin}${delimiter}${process.env.PATH ?? ''}` } });
}

export interface GoProgramOptions {
  /** The program imports the Go code generated from schemas/proto (package flowpb). */
  readonly proto?: boolean;
}

/** The executable of integration-tests/go/<name>, built when its sources (or the .proto files it uses) changed. */
export async function goProgram(name: string, opts: GoProgramOptions = {}): Promise<string> {
  const dir = join(ROOT, name);
  const hash = createHash('sha256');
  const inputs = [...sources(dir).filter((f) => !f.includes(`${sep}flowpb${sep}`)), ...(opts.proto ? PROTO_FILES.map((f) => join(PROTO_DIR, f)) : [])];
  for (const f of inputs) hash.update(f).update(readFileSync(f));
  const out = join(CACHE, `${name}-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(out)) return out;
  await mkdir(CACHE, { recursive: true });
  if (opts.proto) await generateProto(dir);
  // -mod=mod: the module cache (filled by .ci/run's `go mod download`) rather than a vendor directory.
  await runTool('go', ['build', '-mod=mod', '-o', out, '.'], { cwd: dir, timeoutMs: 300_000, env: { CGO_ENABLED: '0' } });
  return out;
}

/** The program, or undefined after skipping the test (failing it in CI) when Go (or protoc) is missing. */
export async function requireGoProgram(t: TestContext, name: string, opts: GoProgramOptions = {}): Promise<string | undefined> {
  return requireTools(t, GO, ...(opts.proto ? [PROTOC] : [])) ? goProgram(name, opts) : undefined;
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
