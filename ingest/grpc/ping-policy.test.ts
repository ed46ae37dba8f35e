import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PingPolicy } from './ping-policy.js';

test('pings sooner than the minimum interval are strikes; the third strike sends the peer away', () => {
  const policy = new PingPolicy({ minIntervalMs: 1000, maxStrikes: 2 });
  assert.equal(policy.received(0), true);
  assert.equal(policy.received(5000), true, 'far enough apart: no strike');
  assert.equal(policy.received(5100), true, 'strike 1');
  assert.equal(policy.received(5200), true, 'strike 2');
  assert.equal(policy.received(9000), true, 'no strike, and strikes are not forgiven');
  assert.equal(policy.received(9001), false, 'strike 3');
});
