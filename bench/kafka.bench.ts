// Kafka backend throughput on a local broker (KAFKA_BROKERS, else one started by the test harness):
// produce through the log's idempotent producer (acks=all) and consume through a read_committed group
// consumer, with 300-byte records as flows.raw carries them.
import { randomBytes } from 'node:crypto';
import { startKafka } from '../integration-tests/harness/kafka.js';
import { openKafkaLog } from '../lib/log/kafka/index.js';
import type { ProduceRecord } from '../lib/log/types.js';
import { type Benchmark, measure } from './types.js';

const RECORD_BYTES = 300;
const BATCH = 5000;
const PARTITIONS = 6;
const TARGET = 150_000;
const WARMUP_MS = 20_000;
/** The consumer is timed once it has read this share of the records, for the same reason. */
const CONSUME_WARMUP_SHARE = 0.2;

/** Starts counting this process's CPU time; the returned function gives the seconds used since. */
function cpuMeter(): () => number {
  const start = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1e6;
  };
}

const bench: Benchmark = async (log) => {
  const broker = await startKafka(log);
  log(`broker ${broker.brokers} (${broker.source})`);
  const kafka = await openKafkaLog({ brokers: broker.brokers });
  try {
    const topic = `bench-${Date.now().toString(36)}`;
    await kafka.admin().createTopics([{ topic, partitions: PARTITIONS }]);
    // Distinct keys spread the records over the partitions as flow keys do; the value is the rest of the 300 bytes.
    const batch: ProduceRecord[] = Array.from({ length: BATCH }, (_, i) => {
      const key = Buffer.from(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}|6|443`);
      return { key, value: randomBytes(RECORD_BYTES - key.length) };
    });
    const producer = kafka.producer();
    let produced = 0;
    const produceCpu = cpuMeter();
    const produceRate = await measure(
      async () => {
        await producer.send(topic, batch);
        produced += BATCH;
      },
      BATCH,
      5000,
      // A broker just started needs about 20 s of this load before its JVM has compiled the hot paths
      // (measured: 23,000 records/s in the first 3 s, 235,000 after 20 s).
      WARMUP_MS,
    );
    const produceCpuRate = produced / produceCpu();
    await producer.close();
    log(`produced ${produced.toLocaleString('en-US')} records`);

    const consumer = kafka.consumer({ groupId: `${topic}-reader` });
    let consumed = 0;
    let first = 0;
    let consumedBefore = 0;
    let last = 0;
    let done!: () => void;
    const all = new Promise<void>((resolve) => (done = resolve));
    let consumeCpu = cpuMeter();
    await consumer.subscribe([topic]);
    await consumer.run({
      eachBatch: async (b) => {
        if (first === 0 && consumed >= produced * CONSUME_WARMUP_SHARE) {
          first = performance.now();
          consumedBefore = consumed;
          consumeCpu = cpuMeter();
        }
        consumed += b.records.length;
        if (consumed >= produced) {
          last = performance.now();
          done();
        }
      },
    });
    await all;
    const timed = consumed - consumedBefore;
    const consumeCpuRate = timed / consumeCpu();
    await consumer.stop();
    // Joining the group and the first records (the broker's fetch path warming up) are not counted.
    const consumeRate = (timed * 1000) / (last - first);
    const note = `${RECORD_BYTES}-byte records, ${PARTITIONS} partitions, local broker (${broker.source}), no compression`;
    const cpuNote = 'CPU time of this process only (the broker runs beside it)';
    return [
      { name: 'kafka produce (idempotent, acks=all, batches of 5,000)', value: produceRate, unit: 'records/s', target: TARGET, note },
      { name: 'kafka consume (read_committed group consumer)', value: consumeRate, unit: 'records/s', target: TARGET, note: `${note}, last ${timed.toLocaleString('en-US')} of ${consumed.toLocaleString('en-US')} records timed` },
      { name: 'kafka produce, client CPU', value: produceCpuRate, unit: 'records/CPU-s', note: cpuNote },
      { name: 'kafka consume, client CPU', value: consumeCpuRate, unit: 'records/CPU-s', note: cpuNote },
    ];
  } finally {
    await kafka.close();
    await broker.stop();
  }
};

export default bench;
