// The production start, as a user meets it, in a copy of the repository (so the developer's own dist/ is
// never touched): `npm start` from the sources stops on SIGTERM with every process gone and every port
// free; `npm run build` gives a complete program (every module loads, the files modules read beside
// themselves are there); `npm start` then runs it, collects IPFIX through the compiled transcoder, and
// stops on SIGTERM the same way; a source edited afterwards makes the build stale.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { type Dirent, appendFileSync, readFileSync, readdirSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { createSocket } from 'node:dgram';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import { OUT_DIR, SOURCE_ROOTS, STAMP_FILE, chooseProgram, sourceFiles } from '../bin/program.js';
import { copyRepository } from '../integration-tests/harness/repo-copy.js';
import { agentMessages, agentTemplate } from '../ingest/testing/fakes.js';
import { MessageEncoder } from '../lib/ipfix/message-encoder.js';
import { PAGE_FILES } from '../exporters/explorer/page-bundle.js';
import { PAGE_BUNDLE, PAGE_SOURCES } from '../exporters/explorer/static.js';
import { untilHolds } from '../lib/testing/until.js';

const copy = copyRepository();
const { root } = copy;
after(() => copy.remove());

interface Running {
  readonly npm: ChildProcess;
  readonly ports: { udp: number; tcp: number; http: number };
  /** npm and every process below it, taken while the service runs. */
  readonly tree: number[];
  readonly stderr: () => string;
}

/** The pids below `pid`, from /proc (npm → node; npm → sh → node when the script does not exec). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

async function npmStart(dataDir: string): Promise<Running> {
  const env = {
    ...process.env,
    FLOWAGG_LOG_LEVEL: 'info',
    FLOWAGG_CFG_INGEST_PORT: '0',
    FLOWAGG_CFG_INGEST_NETFLOW_PORT: '0',
    FLOWAGG_CFG_APISERVER_APIPORT: '0',
    FLOWAGG_CFG_LOG_EMBEDDED_DIR: dataDir,
  };
  const npm = spawn('npm', ['start'], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const ports = await new Promise<Running['ports']>((resolve, reject) => {
    npm.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      for (const line of stderr.split('\n')) {
        if (!line.includes('"msg":"flowagg run running')) continue;
        const { collectors, http } = JSON.parse(line) as { collectors: { udp: number; tcp: number }; http: number };
        resolve({ ...collectors, http });
      }
    });
    npm.once('exit', (code) => reject(new Error(`npm start exited (${code}) before serving:\n${stderr}`)));
  });
  return { npm, ports, tree: [npm.pid!, ...descendants(npm.pid!)], stderr: () => stderr };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Whether nothing holds the port: UDP in both families, TCP on the dual-stack wildcard. */
async function canBind(port: number, kind: 'tcp' | 'udp'): Promise<boolean> {
  const one = (listen: (done: (ok: boolean) => void) => void) => new Promise<boolean>((resolve) => listen(resolve));
  if (kind === 'tcp') {
    return one((done) => {
      const s = createServer().once('error', () => done(false));
      s.listen(port, () => s.close(() => done(true)));
    });
  }
  const results = await Promise.all(
    (['udp4', 'udp6'] as const).map((type) =>
      one((done) => {
        const s = createSocket(type).once('error', () => done(false));
        s.bind(port, () => s.close(() => done(true)));
      }),
    ),
  );
  return results.every(Boolean);
}

/** SIGTERM to the npm process only, as a supervisor sends it; then nothing of it may remain. */
async function stopsOnSigterm(run: Running): Promise<void> {
  const exited = new Promise<number | null>((resolve) => run.npm.once('exit', (code) => resolve(code)));
  run.npm.kill('SIGTERM');
  try {
    assert.equal(await exited, 0, `npm start exit status after SIGTERM; its stderr:\n${run.stderr()}`);
    await untilHolds('every process of npm start to end after SIGTERM (the value: those alive)', () => run.tree.filter(alive), (left) => left.length === 0, { timeoutMs: 10_000, intervalMs: 50 });
    assert.match(run.stderr(), /"msg":"ingest stopped"/);
    for (const [kind, port] of [['udp', run.ports.udp], ['tcp', run.ports.tcp], ['tcp', run.ports.http]] as const) {
      assert.ok(await canBind(port, kind), `${kind} port ${port} is still held after npm start exited`);
    }
  } finally {
    // What a failed stop left behind must not outlive the test (nor hold its stderr pipe open).
    for (const pid of run.tree.filter(alive)) process.kill(pid, 'SIGKILL');
    run.npm.stderr?.destroy();
  }
}

/** Every file below `dir`, relative to it, sorted. */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Dirent[])
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

async function recordMetrics(port: number): Promise<{ numRecordsWritten: number }> {
  const res = await fetch(`http://127.0.0.1:${port}/recordmetrics`);
  return (await res.json()) as { numRecordsWritten: number };
}

test('npm start from the sources stops on SIGTERM: every process exits and every port is free', async () => {
  assert.equal(chooseProgram(root).kind, 'sources');
  await stopsOnSigterm(await npmStart(join(root, 'data-sources')));
});

test('npm run build gives the complete program, and npm start runs it', async (t) => {
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8' });
  assert.equal(build.status, 0, build.stdout + build.stderr);
  assert.equal(chooseProgram(root).kind, 'compiled');

  const compiled = filesUnder(join(root, OUT_DIR));

  await t.test('dist/ holds the program exactly: every source compiled, every file read at run time copied, no test', () => {
    // The explorer's page is bundled into one script and one style sheet, not compiled module by module.
    const bundled = (f: string) => f.startsWith(`${PAGE_SOURCES}/`) && f.endsWith('.ts');
    const expected = sourceFiles(root)
      .filter((f) => SOURCE_ROOTS.some((d) => f.startsWith(`${d}/`)) && !f.endsWith('.d.ts') && !bundled(f))
      .map((f) => f.replace(/\.ts$/, '.js'))
      .concat(Object.keys(PAGE_FILES).map((name) => `${PAGE_BUNDLE}/${name}`));
    assert.ok(expected.includes('schemas/flow-record.avsc'));
    const program = compiled.filter((f) => !f.endsWith('.js.map') && f !== STAMP_FILE);
    assert.deepEqual(program, expected.sort());
  });

  await t.test('every compiled module loads', () => {
    // The page's bundle is a browser script, no module of the program.
    const modules = compiled.filter((f) => f.endsWith('.js') && !f.startsWith(`${PAGE_BUNDLE}/`)).map((f) => join(root, OUT_DIR, f));
    const script = `for (const m of ${JSON.stringify(modules)}) await import(m); console.log('loaded', ${modules.length});`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), `loaded ${modules.length}`);
  });

  await t.test('flowagg --help answers from the compiled program', () => {
    const r = spawnSync(process.execPath, [join(root, 'bin/flowagg.js'), '--help'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Commands:\n {2}run /);
    assert.equal(r.stderr, '');
  });

  await t.test('npm start collects IPFIX through the compiled program and stops on SIGTERM', async () => {
    const run = await npmStart(join(root, 'data-compiled'));
    const socket = connect(run.ports.tcp, '127.0.0.1');
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const encoder = new MessageEncoder({ observationDomainId: 7 });
    for (const m of agentMessages(encoder, agentTemplate(), 0, 100)) socket.write(m);
    await new Promise<void>((resolve) => socket.end(resolve));
    const written = await untilHolds('npm start to write the 100 records', async () => (await recordMetrics(run.ports.http)).numRecordsWritten, (n) => n >= 100, { timeoutMs: 60_000, intervalMs: 100 });
    assert.equal(written, 100);
    await stopsOnSigterm(run);
  });

  await t.test('a source edited after the build makes it stale, and the sources run', () => {
    appendFileSync(join(root, 'app/cli/main.ts'), '\n');
    assert.equal(chooseProgram(root).kind, 'sources');
    const r = spawnSync(process.execPath, [join(root, 'bin/flowagg.js'), '--help'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Commands:/);
  });
});
