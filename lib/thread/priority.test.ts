import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lowerThreadPriority } from './priority.js';

// Changing this thread's own priority would outlast the test (a thread cannot raise it back); the
// threads that are lowered are in threaded-service.test.ts.
test('no change asked, or a system whose nice values are per process: the priority is left alone, saying why', () => {
  assert.deepEqual(lowerThreadPriority(0), { changed: false, reason: 'niceness 0' });
  assert.deepEqual(lowerThreadPriority(5, 'darwin'), { changed: false, reason: 'nice values are per process on darwin' });
});

test('a sandbox that forbids setpriority leaves the thread as it was, saying so, instead of failing its service', () => {
  const forbid = () => {
    throw Object.assign(new Error('EPERM: operation not permitted, uv_os_setpriority'), { code: 'EPERM' });
  };
  assert.deepEqual(lowerThreadPriority(10, 'linux', forbid), { changed: false, reason: 'setpriority failed: EPERM: operation not permitted, uv_os_setpriority' });
});
