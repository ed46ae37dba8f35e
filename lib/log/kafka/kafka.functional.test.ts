// The Kafka backend against a real broker (KAFKA_BROKERS): the shared contract suite, then what only
// Kafka has: compression codecs on the wire, fencing of transactional producers by the coordinator, and
// record placement compared with the Java client's own producer.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

import { LOCAL_SASL, kafkaBrokersForTests } from '../../../integration-tests/harness/kafka.js';
import { isFlowaggError } from '../../errors.js';
import { runLogContract } from '../testing/contract.js';
import { LOG_KEY_REQUIRED, LOG_PRODUCER_FENCED } from '../errors.js';
import { partitionForKey } from '../partitioner.js';
import type { LogRecord, MessageLog } from '../types.js';
import type { KafkaConfigInput } from './config.js';
import { KAFKA_AUTH } from './errors.js';
import kafkajs from './kafkajs.js';
import { openKafkaLog } from './index.js';

const run = promisify(execFile);
const env = kafkaBrokersForTests();
const skip = env.skip;
const brokers = env.brokers ?? '';
const unique = (name: string) => `${name}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;

const open = (extra: Partial<KafkaConfigInput> = {}) => openKafkaLog({ brokers, sessionTimeout: '6s', ...extra });

/** Reads `topic` from the beginning with a fresh group until `count` records arrived. */
async function readAll(log: MessageLog, topic: string, count: number, timeoutMs = 30_000): Promise<LogRecord[]> {
  const consumer = log.consumer({ groupId: unique('reader') });
  const records: LogRecord[] = [];
  let done!: () => void;
  const enough = new Promise<void>((resolve) => (done = resolve));
  await consumer.subscribe([topic]);
  await consumer.run({
    eachBatch: async (batch) => {
      records.push(...batch.records);
      if (records.length >= count) done();
    },
  });
  const timer = setTimeout(done, timeoutMs);
  await enough;
  clearTimeout(timer);
  await consumer.stop();
  return records.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}

if (!skip) runLogContract('kafka', () => open());

describe('Kafka backend', { skip }, () => {
  let log: MessageLog;
  before(async () => {
    log = await open();
  });
  after(async () => {
    await log?.close();
  });

  for (const compression of ['gzip', 'snappy'] as const) {
    test(`${compression}-compressed batches round-trip through the broker`, async () => {
      const type = compression === 'gzip' ? kafkajs.CompressionTypes.GZIP : kafkajs.CompressionTypes.Snappy;
      const codecs = kafkajs.CompressionCodecs as Record<number, () => { compress: (e: unknown) => Promise<Buffer>; decompress: (b: Buffer) => Promise<Buffer> }>;
      const original = codecs[type]!;
      const calls = { compress: 0, decompress: 0 };
      codecs[type] = () => {
        const codec = original();
        return {
          compress: (e) => (calls.compress++, codec.compress(e)),
          decompress: (b) => (calls.decompress++, codec.decompress(b)),
        };
      };
      const compressed = await open({ compression });
      try {
        const topic = unique(`compression-${compression}`);
        await compressed.admin().createTopics([{ topic, partitions: 2 }]);
        const sent = Array.from({ length: 500 }, (_, i) => ({
          key: Buffer.from(`key-${i}`),
          value: Buffer.from(`value ${i} `.repeat(30)),
          headers: { seq: Buffer.from(String(i)) },
        }));
        await compressed.producer().send(topic, sent);
        const got = await readAll(compressed, topic, sent.length);
        assert.equal(got.length, sent.length);
        const byKey = new Map(got.map((r) => [r.key!.toString(), r]));
        for (const s of sent) {
          const r = byKey.get(s.key.toString());
          assert.ok(r, `record ${s.key.toString()} came back`);
          assert.deepEqual(r.value, s.value);
          assert.deepEqual(r.headers.seq, s.headers.seq);
        }
        assert.ok(calls.compress > 0, `the ${compression} codec compressed the produced batches`);
        assert.ok(calls.decompress > 0, `the ${compression} codec decompressed the fetched batches`);
      } finally {
        codecs[type] = original;
        await compressed.close();
      }
    });
  }

  test('a new transactional producer with the same id fences the old one, whose transaction is aborted', async () => {
    const topic = unique('fencing');
    await log.admin().createTopics([{ topic, partitions: 1 }]);
    const id = unique('txn');
    const first = log.transactionalProducer(id);
    const old = await first.begin();
    await old.send(topic, [{ key: Buffer.from('k'), value: Buffer.from('from the fenced producer') }]);

    const second = log.transactionalProducer(id);
    const current = await second.begin();
    await current.send(topic, [{ key: Buffer.from('k'), value: Buffer.from('from the new producer') }]);
    await current.commit();

    await assert.rejects(old.commit(), (err: unknown) => isFlowaggError(err, LOG_PRODUCER_FENCED));
    const records = await readAll(log, topic, 1);
    assert.deepEqual(records.map((r) => r.value?.toString()), ['from the new producer']);
    await Promise.all([first.close(), second.close()]);
  });

  test('a batch whose handler throws is delivered again; batches respect maxBatchRecords; stop revokes', async () => {
    const topic = unique('redelivery');
    await log.admin().createTopics([{ topic, partitions: 1 }]);
    await log.producer().send(topic, Array.from({ length: 25 }, (_, i) => ({ key: null, value: Buffer.from(`m${i}`), partition: 0 })));
    const consumer = log.consumer({ groupId: unique('redelivery'), maxBatchRecords: 10 });
    const deliveries: number[][] = [];
    const revoked: string[] = [];
    let failures = 2;
    let done!: () => void;
    const allRead = new Promise<void>((resolve) => (done = resolve));
    await consumer.subscribe([topic]);
    await consumer.run({
      eachBatch: async (batch) => {
        deliveries.push(batch.records.map((r) => r.offset));
        if (batch.records[0]!.offset === 10 && failures-- > 0) throw new Error('destination down');
        if (batch.records.at(-1)!.offset === 24) done();
      },
      onRevoke: (tps) => void revoked.push(...tps.map((tp) => `${tp.topic}/${tp.partition}`)),
    });
    await allRead;
    await consumer.stop();
    assert.ok(deliveries.every((d) => d.length <= 10), 'no batch above maxBatchRecords');
    const fromTen = deliveries.filter((d) => d[0] === 10);
    assert.equal(fromTen.length, 3, 'the failed batch came twice more');
    assert.ok(fromTen.every((d) => JSON.stringify(d) === JSON.stringify(fromTen[0])), 'with the same records');
    const delivered = [...new Set(deliveries.flat())].sort((a, b) => a - b);
    assert.deepEqual(delivered, Array.from({ length: 25 }, (_, i) => i), 'every record, none skipped');
    assert.deepEqual(revoked, [`${topic}/0`], 'stop() revoked the partition');
  });

  test('a compacted topic is created compacted and refuses records without a key', async () => {
    const topic = unique('compacted');
    await log.admin().createTopics([{ topic, partitions: 2, cleanupPolicy: 'compact' }]);
    const described = (await log.admin().listTopics()).find((t) => t.topic === topic);
    assert.deepEqual(described, { topic, partitions: 2, cleanupPolicy: 'compact' });
    await assert.rejects(log.producer().send(topic, [{ key: null, value: Buffer.from('v') }]), (err: unknown) => isFlowaggError(err, LOG_KEY_REQUIRED));
    const [tombstone] = await log.producer().send(topic, [{ key: Buffer.from('k'), value: null }]);
    assert.equal(tombstone?.partition, partitionForKey(Buffer.from('k'), 2));
  });

  const saslBrokers = process.env.KAFKA_SASL_BROKERS;
  test('SASL PLAIN and SCRAM credentials from the configuration authenticate; a wrong password is refused', { skip: saslBrokers === undefined && 'KAFKA_SASL_BROKERS is not set (the local launcher has a SASL listener)' }, async () => {
    for (const mechanism of ['plain', 'scram-sha-256', 'scram-sha-512'] as const) {
      const authenticated = await open({ brokers: saslBrokers!, sasl: { mechanism, ...LOCAL_SASL } });
      try {
        const topic = unique(`sasl-${mechanism}`);
        await authenticated.admin().createTopics([{ topic, partitions: 1 }]);
        const [sent] = await authenticated.producer().send(topic, [{ key: Buffer.from(mechanism), value: Buffer.from('authenticated') }]);
        assert.deepEqual(sent, { topic, partition: 0, offset: 0 });
        const [read] = await readAll(authenticated, topic, 1);
        assert.equal(read?.value?.toString(), 'authenticated');
      } finally {
        await authenticated.close();
      }
    }
    const refused = await open({ brokers: saslBrokers!, sasl: { mechanism: 'scram-sha-256', username: LOCAL_SASL.username, password: 'wrong' } });
    try {
      await assert.rejects(refused.admin().listTopics(), (err: unknown) => isFlowaggError(err, KAFKA_AUTH) && !err.retriable && /authentication failed/i.test(err.message));
    } finally {
      await refused.close();
    }
  });

  test('keyed records land in the partition the Java client picks', { skip: skip || process.env.FLOWAGG_NO_JAVA === '1' }, async (t) => {
    const javaClasspath = await run(join(import.meta.dirname, '..', '..', '..', 'infra', 'dev', 'kafka'), ['classpath'])
      .then((r) => r.stdout.trim())
      .catch((err: unknown) => {
        if (process.env.CI === 'true') throw err;
        t.skip(`no Java Kafka client (infra/dev/kafka classpath failed: ${(err as Error).message})`);
        return undefined;
      });
    if (javaClasspath === undefined) return;
    const topic = unique('placement');
    const partitions = 7;
    await log.admin().createTopics([{ topic, partitions }]);
    const keys = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? randomBytes(1 + (i % 17)).toString('hex') : `10.0.${i % 256}.${i}|6|${40000 + i}`));

    const dir = await mkdtemp(join(tmpdir(), 'flowagg-java-'));
    try {
      await writeFile(join(dir, 'Placement.java'), JAVA_PLACEMENT);
      const { stdout } = await run('java', ['-cp', javaClasspath, join(dir, 'Placement.java'), brokers, topic, ...keys], { maxBuffer: 2 ** 20 });
      const javaPartition = new Map(stdout.trim().split('\n').map((line) => line.split(' ') as [string, string]).map(([k, p]) => [k, Number(p)]));
      assert.equal(javaPartition.size, keys.length);

      const ours = await log.producer().send(topic, keys.map((k) => ({ key: Buffer.from(k), value: null })));
      for (const [i, key] of keys.entries()) {
        assert.equal(ours[i]!.partition, javaPartition.get(key), `key ${key}: ours and Java's partitions agree`);
        assert.equal(partitionForKey(Buffer.from(key), partitions), javaPartition.get(key));
      }
      assert.ok(new Set(javaPartition.values()).size > 1, 'the keys spread over several partitions');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** Produces one record per key with Java's KafkaProducer and prints "key partition" lines. */
const JAVA_PLACEMENT = `
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class Placement {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.put("bootstrap.servers", args[0]);
    props.put("key.serializer", ByteArraySerializer.class.getName());
    props.put("value.serializer", ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      for (int i = 2; i < args.length; i++) {
        RecordMetadata m = producer.send(new ProducerRecord<>(args[1], args[i].getBytes(StandardCharsets.UTF_8), new byte[0])).get();
        System.out.println(args[i] + " " + m.partition());
      }
    }
  }
}
`;
