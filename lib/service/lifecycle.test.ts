import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FlowaggError, isFlowaggError } from '../errors.js';
import { FAKE_SERVICE_STATE, FakeService } from './testing.js';

const guardError = (method: string, state: string) => (err: unknown) =>
  isFlowaggError(err, FAKE_SERVICE_STATE) && err.message === `svc.${method}() is not allowed in state '${state}' (allowed in: ${method === 'start' ? 'created' : 'running, failed'})`;

test('created → starting → running → stopping → stopped, and not ready outside running', async () => {
  const calls: string[] = [];
  const svc = new FakeService('svc', { calls });
  assert.equal(svc.state, 'created');
  assert.deepEqual(svc.readiness(), { ready: false, detail: 'svc is created' });
  const starting = svc.start();
  assert.equal(svc.state, 'starting');
  await starting;
  assert.equal(svc.state, 'running');
  assert.deepEqual(svc.readiness(), { ready: true });
  const stopping = svc.stop();
  assert.equal(svc.state, 'stopping');
  await stopping;
  assert.equal(svc.state, 'stopped');
  assert.deepEqual(calls, ['svc.start', 'svc.stop']);
  await svc.stop();
  assert.deepEqual(calls, ['svc.start', 'svc.stop'], 'a second stop has nothing to do');
});

test('a service never started stops at once, and cannot start after', async () => {
  const svc = new FakeService('svc');
  await svc.stop();
  assert.equal(svc.state, 'stopped');
  await assert.rejects(svc.start(), guardError('start', 'stopped'));
});

test('start is allowed once: the guard names the method and the state', async () => {
  const svc = new FakeService('svc');
  await svc.start();
  await assert.rejects(svc.start(), guardError('start', 'running'));
});

test('starting → failed: cleanup runs, and the start error is what is thrown even when cleanup fails too', async () => {
  const calls: string[] = [];
  const startError = new Error('the broker is down');
  const svc = new FakeService('svc', { calls, startError, cleanupError: new Error('cleanup broke') });
  await assert.rejects(svc.start(), (err) => err === startError);
  assert.equal(svc.state, 'failed');
  assert.equal(svc.lifecycle.failure, startError);
  assert.deepEqual(svc.readiness(), { ready: false, detail: 'svc failed: the broker is down' });
  assert.deepEqual(calls, ['svc.start', 'svc.cleanup']);
  await svc.stop();
  assert.equal(svc.state, 'stopped');
});

test('running → failed at runtime: the failure listeners hear it once, and stop still releases the service', async () => {
  const calls: string[] = [];
  const svc = new FakeService('svc', { calls });
  const heard: unknown[] = [];
  svc.onFailure((err) => heard.push(err));
  await svc.start();
  svc.crash('the consumer died');
  svc.crash('again');
  assert.equal(svc.state, 'failed');
  assert.equal(heard.length, 1);
  assert.ok(heard[0] instanceof FlowaggError && heard[0].message === 'the consumer died');
  assert.equal(svc.readiness().ready, false);
  await svc.stop();
  assert.deepEqual(calls, ['svc.start', 'svc.stop']);
});

test('a failure reported while stopping or stopped is nobody\'s', async () => {
  const svc = new FakeService('svc');
  const heard: unknown[] = [];
  svc.onFailure((err) => heard.push(err));
  await svc.start();
  await svc.stop();
  svc.crash();
  assert.equal(svc.state, 'stopped');
  assert.deepEqual(heard, []);
});

test('stop is refused while stopping', async () => {
  const svc = new FakeService('svc');
  await svc.start();
  const first = svc.stop();
  await assert.rejects(svc.stop(), guardError('stop', 'stopping'));
  await first;
});
