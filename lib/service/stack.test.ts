import assert from 'node:assert/strict';
import { test } from 'node:test';
import { componentLogger } from '../telemetry/logger.js';
import { ServiceStack } from './stack.js';
import { FakeService } from './testing.js';

test('services stop in the reverse order of their start; a failing stop does not keep the others running', async () => {
  const calls: string[] = [];
  const stack = new ServiceStack(componentLogger('stack-test'));
  const [a, b, c] = ['a', 'b', 'c'].map((name) => new FakeService(name, { calls }));
  await stack.start(a!);
  stack.push({ name: 'metadata', stop: async () => { calls.push('metadata.stop'); throw new Error('did not close'); } });
  await stack.start(b!);
  await assert.rejects(stack.start(new FakeService('broken', { calls, startError: new Error('no') })));
  await stack.start(c!);
  await stack.stopAll();
  assert.deepEqual(calls, ['a.start', 'b.start', 'broken.start', 'broken.cleanup', 'c.start', 'c.stop', 'b.stop', 'metadata.stop', 'a.stop']);
  assert.deepEqual([a, b, c].map((s) => s!.state), ['stopped', 'stopped', 'stopped']);
});
