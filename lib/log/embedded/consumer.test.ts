// Consumer behaviour the contract leaves to each backend's timing: redelivery after eachBatch throws,
// a rebalance never letting two members consume one partition at once, and misuse errors.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { isFlowaggError } from '../../errors.js';
import { LOG_CONSUMER_STATE } from '../errors.js';
import { until } from '../../testing/until.js';
import { type EmbeddedLog, openEmbeddedLog } from './index.js';

async function withLog(fn: (log: EmbeddedLog) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(join(tmpdir(), 'flowagg-log-consumer-'));
  const log = await openEmbeddedLog({ dir });
  try {
    await fn(log);
  } finally {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('a batch whose handler throws is delivered again', async () => {
  await withLog(async (log) => {
    await log.admin().createTopics([{ topic: 't', partitions: 1 }]);
    await log.producer().send('t', [1, 2, 3].map((i) => ({ key: null, value: Buffer.from(`v${i}`) })));
    const deliveries: number[][] = [];
    const consumer = log.consumer({ groupId: 'g' });
    await consumer.subscribe(['t']);
    await consumer.run({
      eachBatch: async (batch) => {
        deliveries.push(batch.records.map((r) => r.offset));
        if (deliveries.length === 1) throw new Error('the destination is down');
      },
    });
    await until('the batch delivered again', () => deliveries.length >= 2);
    await consumer.stop();
    assert.deepEqual(deliveries.slice(0, 2), [[0, 1, 2], [0, 1, 2]]);
  });
});

test('a partition moves to a new member only after the old one finished its batch and onRevoke', async () => {
  await withLog(async (log) => {
    await log.admin().createTopics([{ topic: 't', partitions: 2 }]);
    await log.producer().send('t', Array.from({ length: 200 }, (_, i) => ({ key: null, value: Buffer.from(`v${i}`), partition: i % 2 })));
    const busy = new Map<number, string>();
    const overlaps: string[] = [];
    /** Per member, the partitions of the batches it finished. */
    const done = new Map<string, Set<number>>();
    const finished = (name: string, partition?: number) => (partition === undefined ? (done.get(name)?.size ?? 0) > 0 : done.get(name)?.has(partition) === true);
    const start = async (name: string) => {
      const c = log.consumer({ groupId: 'g', maxBatchRecords: 5 });
      await c.subscribe(['t']);
      await c.run({
        eachBatch: async (batch) => {
          if (busy.has(batch.partition)) overlaps.push(`${name} and ${busy.get(batch.partition)} on ${batch.partition}`);
          busy.set(batch.partition, name);
          await sleep(5);
          busy.delete(batch.partition);
          await c.commit([{ topic: 't', partition: batch.partition, offset: batch.records[batch.records.length - 1]!.offset + 1 }]);
          done.set(name, (done.get(name) ?? new Set()).add(batch.partition));
        },
        onRevoke: (tps) => {
          for (const tp of tps) if (busy.has(tp.partition)) overlaps.push(`${name} revoked ${tp.partition} mid-batch`);
        },
      });
      return c;
    };
    const a = await start('a');
    await until('a to finish a batch', () => finished('a'));
    const b = await start('b');
    await until('b to finish a batch', () => finished('b'));
    const taken = [0, 1].find((p) => !b.assignment().some((tp) => tp.partition === p))!;
    await a.stop();
    await until('b to take both partitions', () => b.assignment().length === 2);
    await until(`b to finish a batch of partition ${taken}, a's until then`, () => finished('b', taken));
    await b.stop();
    assert.deepEqual(overlaps, []);
    assert.deepEqual((await log.admin().listGroups()).find((g) => g.groupId === 'g')?.state, 'empty');
  });
});

test('misuse is refused: run before subscribe, seek on an unassigned partition', async () => {
  await withLog(async (log) => {
    await log.admin().createTopics([{ topic: 't', partitions: 1 }]);
    const consumer = log.consumer({ groupId: 'g' });
    await assert.rejects(consumer.run({ eachBatch: async () => {} }), (err: unknown) => isFlowaggError(err, LOG_CONSUMER_STATE) && err.message.includes("'created'"));
    assert.throws(() => consumer.seek({ topic: 't', partition: 0, offset: 0 }), (err: unknown) => isFlowaggError(err, LOG_CONSUMER_STATE));
    await consumer.stop();
  });
});
