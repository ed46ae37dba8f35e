import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { isFlowaggError } from '../../lib/errors.js';
import { findExecutable, HARNESS_TOOL_FAILED, HARNESS_TOOL_TIMEOUT, requireTools, runTool, type Tool } from './tools.js';

const ABSENT: Tool = { command: 'flowagg-no-such-tool', debianPackage: 'flowagg-imaginary' };

test('findExecutable searches PATH and sbin', () => {
  assert.match(findExecutable('sh') ?? '', /\/sh$/);
  assert.equal(findExecutable(ABSENT.command), undefined);
});

test('a missing tool skips the test, or fails it naming the package when CI is set', (t) => {
  const saved = process.env.CI;
  try {
    delete process.env.CI;
    const skips: (string | undefined)[] = [];
    const context = { skip: (reason?: string) => skips.push(reason) } as unknown as TestContext;
    assert.equal(requireTools(context, ABSENT), false);
    assert.deepEqual(skips, ['needs flowagg-no-such-tool (Debian package flowagg-imaginary)']);
    process.env.CI = 'true';
    assert.throws(() => requireTools(t, ABSENT), /flowagg-no-such-tool \(Debian package flowagg-imaginary\)/);
    assert.equal(requireTools(t, { command: 'sh', debianPackage: 'dash' }), true);
  } finally {
    if (saved === undefined) delete process.env.CI;
    else process.env.CI = saved;
  }
});

test('runTool returns the output, fails on a bad exit and kills what overstays', async () => {
  const ok = await runTool('sh', ['-c', 'echo out; echo err >&2; echo "$X"'], { timeoutMs: 10_000, env: { X: 'from-env' } });
  assert.deepEqual(ok, { exitCode: 0, stdout: 'out\nfrom-env\n', stderr: 'err\n' });
  await assert.rejects(runTool('sh', ['-c', 'echo why >&2; exit 3'], { timeoutMs: 10_000 }), (e) => isFlowaggError(e, HARNESS_TOOL_FAILED) && /exit code 3[\s\S]*why/.test(e.message));
  assert.equal((await runTool('sh', ['-c', 'exit 3'], { timeoutMs: 10_000, allowFailure: true })).exitCode, 3);
  const started = Date.now();
  await assert.rejects(runTool('sleep', ['30'], { timeoutMs: 100 }), (e) => isFlowaggError(e, HARNESS_TOOL_TIMEOUT));
  assert.ok(Date.now() - started < 10_000, 'the process was killed, not waited for');
  await assert.rejects(runTool(ABSENT.command, [], { timeoutMs: 1000 }), (e) => isFlowaggError(e, HARNESS_TOOL_FAILED));
  const abort = new AbortController();
  const aborted = runTool('sleep', ['30'], { timeoutMs: 60_000, signal: abort.signal });
  abort.abort();
  await assert.rejects(aborted, (e) => isFlowaggError(e, HARNESS_TOOL_FAILED) && /sleep was aborted/.test(e.message));
});
