import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { listenForStop } from './stop-signals.js';

function capturingLogger() {
  const lines: { msg: string; signal?: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

test('the first SIGTERM asks to stop; a second one (npm forwarding Ctrl-C) finds a listener and is only logged', async () => {
  const { logger, lines } = capturingLogger();
  const before = { SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') };
  const stop = listenForStop(logger);
  process.emit('SIGTERM', 'SIGTERM');
  assert.equal(await stop.requested, 'SIGTERM');
  // Emitting with no listener would be harmless here, so check the listener is really there.
  assert.equal(process.listenerCount('SIGINT'), before.SIGINT + 1);
  process.emit('SIGINT', 'SIGINT');
  assert.deepEqual(lines.map((l) => [l.msg, l.signal]), [['already stopping', 'SIGINT']]);
  stop.dispose();
  assert.deepEqual({ SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') }, before);
});

test('an abort asks to stop too', async () => {
  const { logger } = capturingLogger();
  const abort = new AbortController();
  const stop = listenForStop(logger, abort.signal);
  abort.abort();
  assert.equal(await stop.requested, 'abort');
  stop.dispose();
});
