// The contract every message-log backend must pass (lib/log/types.ts): registered as node:test tests by
// runLogContract, called by lib/log/embedded/embedded.test.ts and lib/log/kafka/kafka.functional.test.ts.
// Backend-neutral: every test uses its own topics and groups, waits are bounded by `timeoutMs` (generous
// for a real broker's rebalances), and nothing depends on one backend's internals.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { isFlowaggError } from '../../errors.js';
import { until } from '../../testing/until.js';
import { LOG_CLOSED, LOG_CONSUMER_STATE, LOG_GROUP_ACTIVE, LOG_INVALID_ARGUMENT, LOG_PARTITION_OUT_OF_RANGE, LOG_TXN_STATE, LOG_UNKNOWN_TOPIC } from '../errors.js';
import { partitionForKey } from '../partitioner.js';
import type { Consumer, ConsumerConfig, LogRecord, MessageLog, ProduceRecord, Reader, TopicPartition } from '../types.js';

export interface LogContractOptions {
  /** Upper bound of every wait for delivery or rebalance. Default 60 s. */
  readonly timeoutMs?: number;
  /** How long "nothing arrives" is watched for. Default 500 ms. */
  readonly quietMs?: number;
}

const unique = (name: string): string => `contract-${name}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
const value = (s: string): Buffer => Buffer.from(s);
const text = (b: Buffer | null): string | null => (b === null ? null : b.toString());

interface Running {
  readonly consumer: Consumer;
  readonly records: LogRecord[];
  readonly assigned: TopicPartition[][];
  readonly revoked: TopicPartition[][];
}

/** Starts a consumer that collects every record it is given and commits after each batch. */
async function startConsumer(log: MessageLog, topics: string[], config: Partial<ConsumerConfig> & { groupId: string }, commit = true): Promise<Running> {
  const consumer = log.consumer(config);
  const running: Running = { consumer, records: [], assigned: [], revoked: [] };
  await consumer.subscribe(topics);
  await consumer.run({
    eachBatch: async (batch) => {
      running.records.push(...batch.records);
      const last = batch.records[batch.records.length - 1]!;
      if (commit) await consumer.commit([{ topic: batch.topic, partition: batch.partition, offset: last.offset + 1 }]);
    },
    onAssign: (tps) => void running.assigned.push([...tps]),
    onRevoke: (tps) => void running.revoked.push([...tps]),
  });
  return running;
}

const byPartitionAndOffset = (a: LogRecord, b: LogRecord): number => a.partition - b.partition || a.offset - b.offset;
const ofPartition = (records: readonly LogRecord[], partition: number): LogRecord[] => records.filter((r) => r.partition === partition);
const tpSet = (tps: readonly TopicPartition[]): string[] => tps.map((tp) => `${tp.topic}/${tp.partition}`).sort();

export function runLogContract(name: string, open: () => Promise<MessageLog>, opts: LogContractOptions = {}): void {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const quietMs = opts.quietMs ?? 500;

  describe(`message log contract: ${name}`, () => {
    let log: MessageLog;
    before(async () => {
      log = await open();
    });
    after(async () => {
      await log?.close();
    });

    const createTopic = async (label: string, partitions: number): Promise<string> => {
      const topic = unique(label);
      await log.admin().createTopics([{ topic, partitions }]);
      return topic;
    };

    test('createTopics is idempotent and listTopics describes the topics', async () => {
      const topic = unique('create');
      await log.admin().createTopics([{ topic, partitions: 3 }]);
      await log.admin().createTopics([{ topic, partitions: 3 }]);
      const found = (await log.admin().listTopics()).filter((t) => t.topic === topic);
      assert.equal(found.length, 1);
      assert.equal(found[0]!.partitions, 3);
      const offsets = await log.admin().fetchTopicOffsets(topic);
      assert.deepEqual(offsets.map((o) => [o.partition, o.low, o.high]).sort(), [[0, 0, 0], [1, 0, 0], [2, 0, 0]]);
    });

    test('records of a partition keep their order and get consecutive offsets', async () => {
      const topic = await createTopic('order', 2);
      const sent: string[] = [];
      const offsets: number[] = [];
      for (let round = 0; round < 3; round++) {
        const records = Array.from({ length: 50 }, (_, i) => ({ key: null, value: value(`r${round}-${i}`), partition: 0 }));
        sent.push(...records.map((r) => r.value.toString()));
        const meta = await log.producer().send(topic, records);
        assert.ok(meta.every((m) => m.topic === topic && m.partition === 0));
        offsets.push(...meta.map((m) => m.offset));
      }
      assert.deepEqual(offsets, offsets.map((_, i) => offsets[0]! + i), 'offsets are consecutive in send order');
      assert.equal(offsets[0], 0);
      const high = (await log.admin().fetchTopicOffsets(topic)).find((o) => o.partition === 0)!;
      assert.deepEqual([high.low, high.high], [0, 150]);
      const c = await startConsumer(log, [topic], { groupId: unique('order') });
      try {
        await until('150 records', () => c.records.length >= 150, { timeoutMs });
        assert.deepEqual(c.records.map((r) => text(r.value)), sent);
        assert.deepEqual(c.records.map((r) => r.offset), offsets);
      } finally {
        await c.consumer.stop();
      }
    });

    test('keyed records land in the partition of Java murmur2 (partitionForKey)', async () => {
      const partitions = 5;
      const topic = await createTopic('keys', partitions);
      const keys = Array.from({ length: 100 }, (_, i) => `10.1.${i % 7}.${i}|6|${30000 + i}`);
      const meta = await log.producer().send(topic, keys.map((k) => ({ key: value(k), value: value(`v-${k}`) })));
      keys.forEach((k, i) => assert.equal(meta[i]!.partition, partitionForKey(value(k), partitions), `key ${k}`));
      assert.ok(new Set(meta.map((m) => m.partition)).size > 1);
      const c = await startConsumer(log, [topic], { groupId: unique('keys') });
      try {
        await until('100 records', () => c.records.length >= 100, { timeoutMs });
        for (const r of c.records) assert.equal(r.partition, partitionForKey(r.key!, partitions));
        assert.deepEqual(new Set(c.records.map((r) => text(r.key))), new Set(keys));
      } finally {
        await c.consumer.stop();
      }
    });

    test('records sent in runs land in the partition of their key, in the order sent, stamped with the send\'s time', async () => {
      const partitions = 3;
      const topic = await createTopic('runs', partitions);
      // Two buffers, records at arbitrary places in them (gaps between, an empty value), keys of any length.
      const records = Array.from({ length: 60 }, (_, i) => ({ key: `10.2.${i % 5}.${i}|17|${i * 7}`, value: i % 13 === 0 ? '' : `value-${i}`.repeat(1 + (i % 3)) }));
      const runs = [records.slice(0, 25), records.slice(25)].map((part) => {
        const bytes: Buffer[] = [];
        const bounds: number[] = [];
        let at = 0;
        for (const r of part) {
          const gap = Buffer.from('-'.repeat(at % 4));
          bytes.push(gap, value(r.key), value(r.value));
          bounds.push(at + gap.length, at + gap.length + r.key.length, at + gap.length + r.key.length + r.value.length);
          at = bounds.at(-1)!;
        }
        return { buf: Buffer.concat(bytes), bounds: Int32Array.from(bounds) };
      });
      const before = Date.now();
      await log.producer().sendRuns(topic, runs);
      const c = await startConsumer(log, [topic], { groupId: unique('runs') });
      try {
        await until('60 records', () => c.records.length >= records.length, { timeoutMs });
        for (let p = 0; p < partitions; p++) {
          const expected = records.filter((r) => partitionForKey(value(r.key), partitions) === p);
          assert.deepEqual(ofPartition(c.records, p).map((r) => [text(r.key), text(r.value)]), expected.map((r) => [r.key, r.value]), `partition ${p}`);
        }
        for (const r of c.records) {
          assert.ok(r.timestamp >= before - 1000 && r.timestamp <= Date.now() + 1000, `timestamp ${r.timestamp}`);
          assert.deepEqual(r.headers, {});
        }
      } finally {
        await c.consumer.stop();
      }
      const outside = { buf: Buffer.from('key-value'), bounds: Int32Array.from([0, 3, 10]) };
      await assert.rejects(log.producer().sendRuns(topic, [outside]), (err: unknown) => isFlowaggError(err, LOG_INVALID_ARGUMENT) && /outside its 9-byte buffer/.test((err as Error).message));
    });

    for (const valuesInPlace of [false, true]) test(`records keep their key, value, tombstone, timestamp and headers${valuesInPlace ? ', values in place' : ''}`, async () => {
      const topic = await createTopic('roundtrip', 1);
      const ts = Date.now() - 3_600_000;
      const sent: ProduceRecord[] = [
        { key: value('k1'), value: value('v1'), timestamp: ts, headers: { source: value('exporter-1'), empty: Buffer.alloc(0) } },
        { key: value('k2'), value: null, timestamp: ts + 1 },
        { key: null, value: value('no key'), timestamp: ts + 2, partition: 0 },
      ];
      await log.producer().send(topic, sent);
      const c = await startConsumer(log, [topic], { groupId: unique('roundtrip'), valuesInPlace });
      try {
        await until('3 records', () => c.records.length >= 3, { timeoutMs });
        const [a, b, d] = c.records;
        assert.deepEqual([text(a!.key), text(a!.value), a!.timestamp, text(a!.headers.source!), a!.headers.empty!.length], ['k1', 'v1', ts, 'exporter-1', 0]);
        assert.deepEqual([text(b!.key), b!.value, b!.timestamp], ['k2', null, ts + 1]);
        assert.deepEqual([d!.key, text(d!.value), d!.timestamp], [null, 'no key', ts + 2]);
      } finally {
        await c.consumer.stop();
      }
    });

    test('seek, pause and resume of a partition not assigned to the consumer throw at once, on every backend', async () => {
      const topic = await createTopic('unassigned', 2);
      const other = await createTopic('unassigned-other', 1);
      const c = await startConsumer(log, [topic], { groupId: unique('unassigned') });
      try {
        await until('both partitions assigned', () => c.consumer.assignment().length === 2, { timeoutMs });
        const notAssigned = (err: unknown) => isFlowaggError(err, LOG_CONSUMER_STATE) && /not assigned/.test((err as Error).message);
        assert.throws(() => c.consumer.seek({ topic: other, partition: 0, offset: 0 }), notAssigned);
        assert.throws(() => c.consumer.pause([{ topic, partition: 2 }]), notAssigned);
        assert.throws(() => c.consumer.resume([{ topic: other, partition: 0 }]), notAssigned);
        c.consumer.seek({ topic, partition: 1, offset: 0 });
      } finally {
        await c.consumer.stop();
      }
    });

    test('fetchOffsetsByTimestamp finds the first record at or after a time, and seek starts there', async () => {
      const topic = await createTopic('time', 1);
      const t0 = Date.now() - 600_000;
      await log.producer().send(topic, Array.from({ length: 10 }, (_, i) => ({ key: null, value: value(`t${i}`), timestamp: t0 + i * 1000, partition: 0 })));
      const at = async (t: number) => (await log.admin().fetchOffsetsByTimestamp(topic, t)).find((o) => o.partition === 0)!.offset;
      assert.equal(await at(t0 + 5500), 6);
      assert.equal(await at(t0 + 5000), 5);
      assert.equal(await at(t0 - 1), 0);
      assert.equal(await at(t0 + 1_000_000), 10, 'past the last record: the log end offset');
      const c = await startConsumer(log, [topic], { groupId: unique('time'), startFrom: 'latest' });
      try {
        await until('the partition to be assigned', () => c.consumer.assignment().length === 1, { timeoutMs });
        c.consumer.seek({ topic, partition: 0, offset: await at(t0 + 5500) });
        await until('4 records after the seek', () => c.records.length >= 4, { timeoutMs });
        assert.deepEqual(c.records.map((r) => r.offset), [6, 7, 8, 9]);
      } finally {
        await c.consumer.stop();
      }
    });

    test('two consumers of a group share the partitions, and rebalance when one joins or leaves', async () => {
      const topic = await createTopic('rebalance', 4);
      const groupId = unique('rebalance');
      const produce = (round: string) =>
        log.producer().send(topic, Array.from({ length: 40 }, (_, i) => ({ key: null, value: value(`${round}-${i}`), partition: i % 4 })));
      await produce('first');
      const a = await startConsumer(log, [topic], { groupId });
      const b: Running[] = [];
      try {
        await until('consumer A to own all 4 partitions and read 40 records', () => a.consumer.assignment().length === 4 && a.records.length >= 40, { timeoutMs });
        b.push(await startConsumer(log, [topic], { groupId }));
        const [bc] = b;
        await until('the partitions to be split 2 + 2', () => a.consumer.assignment().length === 2 && bc!.consumer.assignment().length === 2, { timeoutMs });
        const union = tpSet([...a.consumer.assignment(), ...bc!.consumer.assignment()]);
        assert.deepEqual(union, tpSet([0, 1, 2, 3].map((partition) => ({ topic, partition }))), 'every partition has exactly one owner');
        assert.ok(a.revoked.flat().length >= 2, 'A was told which partitions it lost');
        const before = a.records.length;
        await produce('second');
        await until('40 more records', () => a.records.length - before + bc!.records.filter((r) => text(r.value)!.startsWith('second')).length >= 40, { timeoutMs });
        const ownedByA = new Set(a.consumer.assignment().map((tp) => tp.partition));
        for (const r of a.records.slice(before)) assert.ok(ownedByA.has(r.partition), `A only reads its partitions (got ${r.partition})`);
        for (const r of bc!.records) assert.ok(!ownedByA.has(r.partition), `B only reads its partitions (got ${r.partition})`);
        const assignsBefore = a.assigned.length;
        await bc!.consumer.stop();
        b.length = 0;
        await until('A to own all 4 partitions again', () => a.consumer.assignment().length === 4, { timeoutMs });
        // Eager (Kafka) or incremental (embedded) rebalancing: either way onAssign told A about B's partitions.
        const regained = new Set(tpSet(a.assigned.slice(assignsBefore).flat()));
        for (const tp of tpSet(bc!.assigned.flat())) assert.ok(regained.has(tp), `A is assigned ${tp}, which B had`);
      } finally {
        await Promise.all([a.consumer.stop(), ...b.map((x) => x.consumer.stop())]);
      }
    });

    test('a consumer resumes from its group\'s committed offset', async () => {
      const topic = await createTopic('resume', 1);
      const groupId = unique('resume');
      await log.producer().send(topic, Array.from({ length: 10 }, (_, i) => ({ key: null, value: value(`m${i}`), partition: 0 })));
      const first = await startConsumer(log, [topic], { groupId }, false);
      await until('10 records', () => first.records.length >= 10, { timeoutMs });
      await first.consumer.commit([{ topic, partition: 0, offset: 6 }]);
      await first.consumer.stop();
      const lag = await log.admin().fetchGroupLag(groupId);
      assert.deepEqual(lag.map((l) => [l.topic, l.partition, l.committed, l.high, l.lag]), [[topic, 0, 6, 10, 4]]);
      const second = await startConsumer(log, [topic], { groupId });
      try {
        await until('4 records', () => second.records.length >= 4, { timeoutMs });
        assert.deepEqual(second.records.map((r) => r.offset), [6, 7, 8, 9]);
      } finally {
        await second.consumer.stop();
      }
    });

    test('pause stops a partition\'s delivery until resume', async () => {
      const topic = await createTopic('pause', 2);
      const c = await startConsumer(log, [topic], { groupId: unique('pause') });
      try {
        await until('both partitions assigned', () => c.consumer.assignment().length === 2, { timeoutMs });
        c.consumer.pause([{ topic, partition: 0 }]);
        await log.producer().send(topic, Array.from({ length: 10 }, (_, i) => ({ key: null, value: value(`p${i}`), partition: i % 2 })));
        await until('partition 1\'s records', () => ofPartition(c.records, 1).length >= 5, { timeoutMs });
        await sleep(quietMs);
        assert.equal(ofPartition(c.records, 0).length, 0, 'nothing from the paused partition');
        c.consumer.resume([{ topic, partition: 0 }]);
        await until('partition 0\'s records after resume', () => ofPartition(c.records, 0).length >= 5, { timeoutMs });
      } finally {
        await c.consumer.stop();
      }
    });

    test('a transaction\'s records and offsets become visible together on commit; aborted ones never', async () => {
      const input = await createTopic('txn-in', 1);
      const output = await createTopic('txn-out', 2);
      const groupId = unique('txn-group');
      await log.producer().send(input, Array.from({ length: 5 }, (_, i) => ({ key: null, value: value(`in${i}`), partition: 0 })));
      const producer = log.transactionalProducer(unique('txn'));
      try {
        const aborted = await producer.begin();
        await aborted.send(output, [0, 1, 0].map((partition, i) => ({ key: null, value: value(`aborted-${i}`), partition })));
        await aborted.sendOffsets(groupId, [{ topic: input, partition: 0, offset: 2 }]);
        await aborted.abort();

        const committed = await producer.begin();
        await committed.send(output, [0, 1, 0, 1].map((partition, i) => ({ key: null, value: value(`committed-${i}`), partition })));
        await committed.sendOffsets(groupId, [{ topic: input, partition: 0, offset: 5 }]);
        await committed.commit();
      } finally {
        await producer.close();
      }
      await log.producer().send(output, [0, 1].map((partition) => ({ key: null, value: value('end'), partition })));

      const c = await startConsumer(log, [output], { groupId: unique('txn-reader'), isolation: 'read_committed' });
      try {
        await until('both end markers', () => c.records.filter((r) => text(r.value) === 'end').length === 2, { timeoutMs });
        const values = [...c.records].sort(byPartitionAndOffset).map((r) => `${r.partition}:${text(r.value)}`);
        assert.deepEqual(values, ['0:committed-0', '0:committed-2', '0:end', '1:committed-1', '1:committed-3', '1:end']);
      } finally {
        await c.consumer.stop();
      }
      const lag = await log.admin().fetchGroupLag(groupId);
      assert.deepEqual(lag.map((l) => [l.topic, l.partition, l.committed]), [[input, 0, 5]], 'the committed offsets, not the aborted ones');
    });

    test('records of an open transaction are invisible to read_committed consumers until commit', async () => {
      const topic = await createTopic('txn-open', 2);
      const producer = log.transactionalProducer(unique('txn-open'));
      const c = await startConsumer(log, [topic], { groupId: unique('txn-open-reader') });
      try {
        const txn = await producer.begin();
        await txn.send(topic, [{ key: null, value: value('pending'), partition: 0 }]);
        await log.producer().send(topic, [{ key: null, value: value('plain'), partition: 1 }]);
        await until('the plain record', () => c.records.some((r) => text(r.value) === 'plain'), { timeoutMs });
        await sleep(quietMs);
        assert.ok(!c.records.some((r) => text(r.value) === 'pending'), 'the open transaction is not visible');
        await txn.commit();
        await until('the committed record', () => c.records.some((r) => text(r.value) === 'pending'), { timeoutMs });
      } finally {
        await c.consumer.stop();
        await producer.close();
      }
    });

    test('a second begin while a transaction is open, and a commit after commit, are refused', async () => {
      const topic = await createTopic('txn-state', 1);
      const producer = log.transactionalProducer(unique('txn-state'));
      try {
        const txn = await producer.begin();
        await assert.rejects(producer.begin(), (err: unknown) => isFlowaggError(err, LOG_TXN_STATE));
        await txn.send(topic, [{ key: null, value: value('x'), partition: 0 }]);
        await txn.commit();
        await assert.rejects(txn.commit(), (err: unknown) => isFlowaggError(err, LOG_TXN_STATE));
        await assert.rejects(txn.send(topic, [{ key: null, value: value('y'), partition: 0 }]), (err: unknown) => isFlowaggError(err, LOG_TXN_STATE));
        const next = await producer.begin();
        await next.abort();
      } finally {
        await producer.close();
      }
    });

    test('resetGroupOffsets moves a group (clamped to the log) and refuses while it has members', async () => {
      const topic = await createTopic('reset', 2);
      const groupId = unique('reset');
      const t0 = Date.now() - 600_000;
      await log.producer().send(topic, Array.from({ length: 20 }, (_, i) => ({ key: null, value: value(`x${i}`), timestamp: t0 + Math.floor(i / 2) * 1000, partition: i % 2 })));
      const c = await startConsumer(log, [topic], { groupId });
      await until('20 records', () => c.records.length >= 20, { timeoutMs });
      await assert.rejects(log.admin().resetGroupOffsets(groupId, topic, { to: 'earliest' }), (err: unknown) => isFlowaggError(err, LOG_GROUP_ACTIVE));
      await c.consumer.stop();
      const isEmpty = async () => (await log.admin().listGroups()).find((g) => g.groupId === groupId)?.state === 'empty';
      await until('the group to be empty', isEmpty, { timeoutMs });
      const reset = async (spec: Parameters<ReturnType<MessageLog['admin']>['resetGroupOffsets']>[2]) =>
        (await log.admin().resetGroupOffsets(groupId, topic, spec)).sort((a, b) => a.partition - b.partition).map((o) => o.offset);
      assert.deepEqual(await reset({ to: 'earliest' }), [0, 0]);
      assert.deepEqual(await reset({ to: 'latest' }), [10, 10]);
      assert.deepEqual(await reset({ to: 'offset', offset: 3 }), [3, 3]);
      assert.deepEqual(await reset({ shiftBy: 2 }), [5, 5]);
      assert.deepEqual(await reset({ shiftBy: -1000 }), [0, 0], 'clamped to the log start');
      assert.deepEqual(await reset({ to: 'offset', offset: 1_000_000 }), [10, 10], 'clamped to the log end');
      assert.deepEqual(await reset({ to: 'datetime', timestamp: t0 + 4500 }), [5, 5]);
      const lag = await log.admin().fetchGroupLag(groupId);
      assert.deepEqual(lag.map((l) => [l.partition, l.committed, l.lag]), [[0, 5, 5], [1, 5, 5]]);
      const again = await startConsumer(log, [topic], { groupId });
      try {
        await until('10 records replayed', () => again.records.length >= 10, { timeoutMs });
        assert.deepEqual([...again.records].sort(byPartitionAndOffset).map((r) => r.offset), [5, 6, 7, 8, 9, 5, 6, 7, 8, 9]);
      } finally {
        await again.consumer.stop();
      }
    });

    test('a reader fetches a partition from an offset without joining a group, and waits for new records up to its bound', async () => {
      const topic = await createTopic('reader', 2);
      await log.producer().send(topic, Array.from({ length: 30 }, (_, i) => ({ key: null, value: value(`r${i}`), partition: 0 })));
      await log.producer().send(topic, [{ key: null, value: value('other'), partition: 1 }]);
      const groupsBefore = (await log.admin().listGroups()).length;
      const reader = log.reader();
      try {
        const tp = { topic, partition: 0 };
        const first = await reader.fetch(tp, 10, { maxRecords: 15 });
        assert.deepEqual(first.records.map((r) => text(r.value)), Array.from({ length: 15 }, (_, i) => `r${10 + i}`));
        assert.ok(first.records.every((r) => r.topic === topic && r.partition === 0));
        assert.deepEqual([first.next, first.highWatermark], [25, 30]);
        const rest = await reader.fetch(tp, first.next);
        assert.deepEqual(rest.records.map((r) => r.offset), [25, 26, 27, 28, 29]);
        assert.equal(rest.next, 30);
        const caughtUp = await reader.fetch(tp, 30);
        assert.deepEqual([caughtUp.records.length, caughtUp.next, caughtUp.highWatermark], [0, 30, 30]);
        // A fetch at the end waits for the next record, within its bound.
        const waiting = reader.fetch(tp, 30, { maxWaitMs: timeoutMs });
        await sleep(50);
        await log.producer().send(topic, [{ key: null, value: value('late'), partition: 0 }]);
        const late = await waiting;
        assert.deepEqual(late.records.map((r) => [r.offset, text(r.value)]), [[30, 'late']]);
        assert.equal(late.next, 31);
        const quiet = await reader.fetch(tp, 31, { maxWaitMs: quietMs });
        assert.deepEqual([quiet.records.length, quiet.next], [0, 31], 'nothing arrived within the bound');
        const beyond = await reader.fetch(tp, 1000);
        assert.deepEqual([beyond.records.length, beyond.next], [0, 31], 'beyond the log end reads from the log end');
        const other = await reader.fetch({ topic, partition: 1 }, 0);
        assert.deepEqual(other.records.map((r) => text(r.value)), ['other']);
        assert.equal((await log.admin().listGroups()).length, groupsBefore, 'the reader joined no group');
      } finally {
        await reader.close();
      }
    });

    test('a read_committed reader skips aborted transactions and stops at an open one; read_uncommitted sees them', async () => {
      const topic = await createTopic('reader-txn', 1);
      const producer = log.transactionalProducer(unique('reader-txn'));
      const committed = log.reader();
      const uncommitted = log.reader({ isolation: 'read_uncommitted' });
      const tp = { topic, partition: 0 };
      // Collects `count` values from `from` (Kafka writes transaction markers after commit() returns, so
      // records become readable a moment later), then makes sure nothing more is readable.
      const collect = async (reader: Reader, from: number, count: number) => {
        const values: string[] = [];
        let next = from;
        let highWatermark = from;
        const deadline = Date.now() + timeoutMs;
        while (values.length < count) {
          if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${count} records, got ${JSON.stringify(values)}`);
          const r = await reader.fetch(tp, next, { maxWaitMs: 200 });
          values.push(...r.records.map((x) => text(x.value)!));
          next = r.next;
          highWatermark = r.highWatermark;
        }
        const more = await reader.fetch(tp, next, { maxWaitMs: quietMs });
        values.push(...more.records.map((x) => text(x.value)!));
        return { values, next: more.next, highWatermark: Math.max(highWatermark, more.highWatermark) };
      };
      try {
        const aborted = await producer.begin();
        await aborted.send(topic, ['a0', 'a1', 'a2'].map((v) => ({ key: null, value: value(v), partition: 0 })));
        await aborted.abort();
        const done = await producer.begin();
        await done.send(topic, ['c0', 'c1'].map((v) => ({ key: null, value: value(v), partition: 0 })));
        await done.commit();
        const open = await producer.begin();
        await open.send(topic, [{ key: null, value: value('pending'), partition: 0 }]);
        await log.producer().send(topic, [{ key: null, value: value('plain'), partition: 0 }]);
        const before = await collect(committed, 0, 2);
        assert.deepEqual(before.values, ['c0', 'c1'], 'aborted records skipped, nothing at or after the open transaction');
        assert.ok(before.next <= before.highWatermark);
        const dirty = await collect(uncommitted, 0, 7);
        assert.deepEqual(dirty.values, ['a0', 'a1', 'a2', 'c0', 'c1', 'pending', 'plain']);
        await open.commit();
        const after = await collect(committed, before.next, 2);
        assert.deepEqual(after.values, ['pending', 'plain']);
      } finally {
        await Promise.all([committed.close(), uncommitted.close(), producer.close()]);
      }
    });

    test('closing a reader ends a fetch that waits, and refuses later ones', async () => {
      const topic = await createTopic('reader-close', 1);
      const reader = log.reader();
      const waiting = reader.fetch({ topic, partition: 0 }, 0, { maxWaitMs: timeoutMs });
      await sleep(50);
      await reader.close();
      const ended = await waiting;
      assert.equal(ended.records.length, 0);
      await assert.rejects(reader.fetch({ topic, partition: 0 }, 0), (err: unknown) => isFlowaggError(err, LOG_CLOSED));
    });

    test('unknown topics and partitions out of range are refused with clear errors', async () => {
      const topic = await createTopic('bad-input', 2);
      await assert.rejects(log.producer().send(unique('missing'), [{ key: null, value: value('x') }]), (err: unknown) => isFlowaggError(err, LOG_UNKNOWN_TOPIC));
      await assert.rejects(log.producer().send(topic, [{ key: null, value: value('x'), partition: 7 }]), (err: unknown) => isFlowaggError(err, LOG_PARTITION_OUT_OF_RANGE));
      await assert.rejects(log.admin().fetchTopicOffsets(unique('missing')), (err: unknown) => isFlowaggError(err, LOG_UNKNOWN_TOPIC));
      const reader = log.reader();
      try {
        await assert.rejects(reader.fetch({ topic, partition: 7 }, 0), (err: unknown) => isFlowaggError(err, LOG_PARTITION_OUT_OF_RANGE));
      } finally {
        await reader.close();
      }
    });
  });
}
