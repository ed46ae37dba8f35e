// The shared contract (lib/log/testing/contract.ts) against a log used from another thread: the test's
// thread is the client, the owner (an embedded log) runs on a real worker thread. Then what only a
// thread boundary can break: errors keeping their codes, fencing, and a thread that goes away.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { MessageChannel, type Worker } from 'node:worker_threads';
import { isFlowaggError } from '../../errors.js';
import { until } from '../../testing/until.js';
import { startWorker } from '../../thread/boot.js';
import { LOG_CLOSED, LOG_PRODUCER_FENCED, LOG_UNKNOWN_TOPIC } from '../errors.js';
import { openEmbeddedLog } from '../embedded/index.js';
import { runLogContract } from '../testing/contract.js';
import type { LogRecord, MessageLog } from '../types.js';
import { remoteLog } from './client.js';
import { serveLog } from './serve.js';

const dirs: string[] = [];
const workers: Worker[] = [];
after(async () => {
  for (const w of workers) await w.terminate();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-remote-log-'));
  dirs.push(dir);
  return dir;
};

/** A client here of an embedded log owned by a worker thread. */
function remoteOnThread(): { log: MessageLog; worker: Worker } {
  const { port1, port2 } = new MessageChannel();
  const worker = startWorker(new URL(import.meta.resolve('./testing/owner.js')), { dir: tempDir(), port: port2 }, [port2]);
  workers.push(worker);
  return { log: remoteLog(port1, 'embedded'), worker };
}

runLogContract('remote (owner on a worker thread)', async () => remoteOnThread().log, { timeoutMs: 10_000, quietMs: 200 });

test('errors keep their codes across the threads, both ways: the owner\'s, and a handler\'s that makes the owner deliver the batch again', async () => {
  const { log } = remoteOnThread();
  await assert.rejects(log.producer().send('no-such-topic', [{ key: null, value: Buffer.from('x') }]), (e: unknown) => isFlowaggError(e, LOG_UNKNOWN_TOPIC));
  await log.admin().createTopics([{ topic: 't', partitions: 1 }]);
  await log.producer().send('t', [{ key: Buffer.from('k'), value: Buffer.from('v'), headers: { h: Buffer.from('hv') } }]);
  const consumer = log.consumer({ groupId: 'g' });
  const seen: LogRecord[] = [];
  await consumer.subscribe(['t']);
  await consumer.run({
    eachBatch: async (batch) => {
      seen.push(...batch.records);
      if (seen.length === 1) throw new Error('the first delivery fails');
    },
  });
  await until('the batch delivered again after the failure', () => seen.length >= 2, { timeoutMs: 10_000 });
  assert.deepEqual(consumer.assignment(), [{ topic: 't', partition: 0 }]);
  for (const r of seen) {
    assert.ok(Buffer.isBuffer(r.key) && Buffer.isBuffer(r.value) && Buffer.isBuffer(r.headers.h), 'keys, values and headers arrive as Buffers');
    assert.deepEqual([r.key.toString(), r.value!.toString(), r.headers.h!.toString(), r.offset], ['k', 'v', 'hv', 0]);
  }
  await consumer.stop();
  await log.close();
  await assert.rejects(log.admin().listTopics(), (e: unknown) => isFlowaggError(e, LOG_CLOSED));
});

test('a batch the owner fetched before the client\'s seek is refused: the next delivery starts where the seek moved the partition', async () => {
  const { log } = remoteOnThread();
  await log.admin().createTopics([{ topic: 't', partitions: 1 }]);
  const produce = (from: number, to: number) => log.producer().send('t', Array.from({ length: to - from }, (_, i) => ({ key: null, value: Buffer.from(`r${from + i}`), partition: 0 })));
  await produce(0, 5);
  const consumer = log.consumer({ groupId: 'g' });
  const firsts: number[] = [];
  let sought = false;
  await consumer.subscribe(['t']);
  await consumer.run({
    eachBatch: async (batch) => {
      firsts.push(batch.records[0]!.offset);
      if (batch.records[0]!.offset !== 5 || sought) return;
      // The task of offset 5 fails, and its successor seeks back to 2 while the owner is sending the failed
      // batch again: this thread is held up until that delivery waits in its port, then seeks.
      sought = true;
      setImmediate(() => {
        const until = Date.now() + 1000;
        while (Date.now() < until);
        consumer.seek({ topic: 't', partition: 0, offset: 2 });
      });
      throw new Error('the task of this partition failed');
    },
  });
  await until('the first five records', () => firsts.length === 1, { timeoutMs: 10_000 });
  await produce(5, 10);
  await until('a delivery after the seek', () => firsts.length >= 3, { timeoutMs: 10_000 });
  assert.deepEqual(firsts.slice(0, 3), [0, 5, 2], 'after the seek, the partition is delivered from offset 2, not the batch from 5 fetched before it');
  await consumer.stop();
  await log.close();
});

test('a second transactional producer of the same id, on the owner, fences the remote one', async () => {
  const dir = tempDir();
  const owner = await openEmbeddedLog({ dir });
  const { port1, port2 } = new MessageChannel();
  const served = serveLog(owner, port2);
  const log = remoteLog(port1, 'embedded');
  await log.admin().createTopics([{ topic: 'out', partitions: 1 }]);
  const txn = await log.transactionalProducer('tx-1').begin();
  await txn.send('out', [{ key: Buffer.from('a'), value: Buffer.from('1') }]);
  await owner.transactionalProducer('tx-1').begin();
  await assert.rejects(txn.commit(), (e: unknown) => isFlowaggError(e, LOG_PRODUCER_FENCED));
  await log.close();
  await served.close();
  await owner.close();
});

test('a client thread that goes away leaves its group: another member gets its partitions; the owner going away rejects the client\'s calls', async () => {
  const owner = await openEmbeddedLog({ dir: tempDir() });
  await owner.admin().createTopics([{ topic: 'in', partitions: 2 }]);
  const { port1, port2 } = new MessageChannel();
  const served = serveLog(owner, port2);
  const client = remoteLog(port1, 'embedded');
  const gone = client.consumer({ groupId: 'g' });
  await gone.subscribe(['in']);
  await gone.run({ eachBatch: async () => {} });
  await until('the remote member to hold both partitions', () => gone.assignment().length === 2, { timeoutMs: 10_000 });
  // The client's side of the port closes as it would when its thread ends.
  port1.close();
  const other = owner.consumer({ groupId: 'g' });
  await other.subscribe(['in']);
  await other.run({ eachBatch: async () => {} });
  await until('the other member to get both partitions', () => other.assignment().length === 2, { timeoutMs: 10_000 });
  await assert.rejects(client.admin().listTopics(), (e: unknown) => isFlowaggError(e, LOG_CLOSED));
  await other.stop();
  await served.close();
  await owner.close();
});
