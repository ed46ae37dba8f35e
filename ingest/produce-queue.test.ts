import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { FlowaggError } from '../lib/errors.js';
import { LOG_RECORD_REJECTED } from '../lib/log/errors.js';
import type { ProduceRecord } from '../lib/log/types.js';
import { until } from '../lib/testing/until.js';
import { ProduceQueue } from './produce-queue.js';
import { ControllableProducer } from './testing/fakes.js';

const opts = { topic: 'flows.raw', maxRecords: 100, maxBytes: 1 << 30, batchRecords: 10, lingerMs: 5, maxInFlightBatches: 2, retryMinMs: 1 };

function records(n: number, from = 0): ProduceRecord[] {
  return Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(String(from + i)) }));
}

test('records are sent in batches, in order, full batches at once and the rest after the linger time', async () => {
  const producer = new ControllableProducer();
  // A linger far above the event loop's jitter on a busy machine, so that the partial batch cannot leave early.
  const queue = new ProduceQueue(producer, { ...opts, lingerMs: 200 });
  queue.enqueue(records(25));
  await sleep(0);
  assert.deepEqual(producer.sent.map((s) => s.records.length), [10, 10]);
  await until('the partial batch, after the linger time', () => producer.sent.length === 3);
  assert.deepEqual(producer.sent.map((s) => s.records.length), [10, 10, 5]);
  assert.deepEqual(producer.records().map((r) => r.value!.toString()), records(25).map((r) => r.value!.toString()));
  assert.equal(queue.stats().queuedRecords, 0);
  assert.equal(producer.sent[0]!.topic, 'flows.raw');
});

test('a stalled log throttles the queue at its bound; it drains at half the bound', async () => {
  const producer = new ControllableProducer({ stalled: true });
  const queue = new ProduceQueue(producer, opts);
  for (let i = 0; i < 9; i++) queue.enqueue(records(10, i * 10));
  assert.equal(queue.throttled, false);
  queue.enqueue(records(10, 90));
  assert.equal(queue.throttled, true);
  assert.equal(producer.pendingSends, 2, 'only maxInFlightBatches sends are outstanding');
  assert.equal(queue.stats().queuedRecords, 100);
  const drained = once(queue, 'drain');
  producer.release();
  await drained;
  assert.equal(queue.throttled, false);
  assert.ok(await queue.flush(1000));
  assert.equal(producer.records().length, 100);
});

test('the byte bound throttles too', () => {
  const queue = new ProduceQueue(new ControllableProducer({ stalled: true }), { ...opts, maxBytes: 300 });
  queue.enqueue(records(5));
  assert.equal(queue.throttled, false);
  queue.enqueue(records(5));
  assert.equal(queue.throttled, true);
});

test('every failure is retried, even one the log calls final, except a refusal of the records themselves', async () => {
  const producer = new ControllableProducer();
  const failed: [number, boolean][] = [];
  const queue = new ProduceQueue(producer, { ...opts, maxInFlightBatches: 1 }, { failed: (_e, n, retrying) => failed.push([n, retrying]) });
  producer.failures.push(
    new FlowaggError('FLOWAGG_ERR_LOG_X', 'broker away', { retriable: true }),
    new Error('socket hang up'),
    new FlowaggError('FLOWAGG_ERR_LOG_KAFKA_BROKER', 'out of order sequence number', { retriable: false }),
  );
  queue.enqueue(records(10));
  assert.ok(await queue.flush(1000));
  assert.equal(producer.records().length, 10);
  producer.failures.push(new FlowaggError(LOG_RECORD_REJECTED, 'record too large'));
  queue.enqueue(records(10));
  assert.ok(await queue.flush(1000));
  assert.equal(producer.records().length, 10);
  assert.deepEqual(failed, [[10, true], [10, true], [10, true], [10, false]]);
});

test('flush gives up at its deadline on a stalled log, and abandon stops everything', async () => {
  const producer = new ControllableProducer({ stalled: true });
  const queue = new ProduceQueue(producer, opts);
  queue.enqueue(records(35));
  assert.equal(await queue.flush(30), false);
  assert.equal(queue.abandon(), 35);
  queue.enqueue(records(5));
  assert.equal(queue.stats().queuedRecords, 35);
});

test('flows in runs and records between them go in separate sends, in the order enqueued', async () => {
  const producer = new ControllableProducer({ stalled: true });
  const queue = new ProduceQueue(producer, { ...opts, batchRecords: 1000 });
  const writer = queue.runWriter();
  const message = (from: number) => {
    for (let i = from; i < from + 3; i++) {
      const out = writer.out;
      out.reserve(16);
      out.keyStart = out.pos;
      out.keyEnd = out.keyStart + out.buf.write(`k${i}`, out.keyStart);
      out.valueEnd = out.keyEnd + out.buf.write(`v${i}`, out.keyEnd);
      out.pos = out.valueEnd;
      writer.added();
    }
    queue.enqueueRuns(writer.take());
  };
  message(0);
  message(3);
  queue.enqueue([{ key: null, value: null, partition: 0 }]);
  message(6);
  assert.equal(queue.stats().queuedRecords, 10);
  producer.release();
  assert.ok(await queue.flush(1000));
  assert.deepEqual(producer.sent.map((s) => s.records.map((r) => r.value?.toString() ?? 'tick')), [['v0', 'v1', 'v2', 'v3', 'v4', 'v5'], ['tick'], ['v6', 'v7', 'v8']]);
});
