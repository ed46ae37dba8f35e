// The durable record of which batch each exporter group is delivering on each partition: before a batch
// goes to its destination, its offset range is written to the compacted topic exporter.batches, keyed by
// group and partition. After a crash or a rebalance, the partition's next owner finds the range there and
// cuts exactly that batch again (same records, same id) before cutting new ones, so a destination that
// deduplicates by batch id (ClickHouse's insert token) sees a retry, not new data. Cutting by offsets
// alone could not promise that: a batch cut by time holds whatever had arrived when the clock ran out.
//
// Every runner keeps one reader of the topic (its own throwaway consumer group, never committed), so
// that the latest range of a partition is in memory by the time the partition is assigned to it.
import { randomUUID } from 'node:crypto';
import type { Consumer, MessageLog, Producer } from '../lib/log/types.js';
import type { Logger } from '../lib/telemetry/logger.js';

export interface BatchIntent {
  readonly topic: string;
  readonly partition: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
}

const keyOf = (groupId: string, topic: string, partition: number) => `${groupId}/${topic}/${partition}`;

function parse(value: Buffer): BatchIntent | undefined {
  try {
    const v = JSON.parse(value.toString('utf8')) as Partial<BatchIntent>;
    const ok = typeof v.topic === 'string' && Number.isSafeInteger(v.partition) && Number.isSafeInteger(v.firstOffset) && Number.isSafeInteger(v.lastOffset);
    return ok ? (v as BatchIntent) : undefined;
  } catch {
    return undefined;
  }
}

export class BatchIntents {
  readonly #latest = new Map<string, BatchIntent>();
  /** Per partition of the intents topic, the offset after the last record read. */
  readonly #read = new Map<number, number>();
  readonly #waiters = new Set<() => void>();

  private constructor(
    private readonly log: MessageLog,
    private readonly topic: string,
    private readonly groupId: string,
    private readonly producer: Producer,
    private readonly consumer: Consumer,
    private readonly logger: Logger,
  ) {}

  /** `onFailure`: the consumer of the topic stopped for good (ConsumerHandlers.onFailure). */
  static async open(log: MessageLog, topic: string, groupId: string, logger: Logger, onFailure?: (err: unknown) => void): Promise<BatchIntents> {
    await log.admin().createTopics([{ topic, partitions: 1, cleanupPolicy: 'compact' }]);
    const consumer = log.consumer({ groupId: `${groupId}.batches.${randomUUID()}`, startFrom: 'earliest' });
    const intents = new BatchIntents(log, topic, groupId, log.producer(), consumer, logger);
    await consumer.subscribe([topic]);
    await consumer.run({
      eachBatch: async (batch) => {
        for (const r of batch.records) if (r.key !== null && r.value !== null) intents.#learn(r.key.toString('utf8'), r.value);
        intents.#read.set(batch.partition, batch.records[batch.records.length - 1]!.offset + 1);
        for (const wake of intents.#waiters) wake();
      },
      ...(onFailure && { onFailure }),
    });
    return intents;
  }

  #learn(key: string, value: Buffer): void {
    if (!key.startsWith(`${this.groupId}/`)) return;
    const intent = parse(value);
    if (intent === undefined) this.logger.warn({ key, topic: this.topic }, 'unreadable batch range ignored');
    else this.#latest.set(key, intent);
  }

  /** Resolves once everything written to the topic before the call has been read. */
  async caughtUp(): Promise<void> {
    const ends = await this.log.admin().fetchTopicOffsets(this.topic);
    const behind = () => ends.some((e) => e.high > e.low && (this.#read.get(e.partition) ?? e.low) < e.high);
    while (behind()) {
      let wake!: () => void;
      await new Promise<void>((resolve) => this.#waiters.add((wake = resolve)));
      this.#waiters.delete(wake);
    }
  }

  /** The last range recorded for the partition by this group, if any. */
  latest(topic: string, partition: number): BatchIntent | undefined {
    return this.#latest.get(keyOf(this.groupId, topic, partition));
  }

  /** Records the range durably; resolves once the log has it. */
  async record(intent: BatchIntent): Promise<void> {
    // Only the range: callers may pass a whole batch, whose records must not go into the log again.
    const range: BatchIntent = { topic: intent.topic, partition: intent.partition, firstOffset: intent.firstOffset, lastOffset: intent.lastOffset };
    const key = keyOf(this.groupId, range.topic, range.partition);
    await this.producer.send(this.topic, [{ key: Buffer.from(key), value: Buffer.from(JSON.stringify(range)) }]);
    this.#latest.set(key, range);
  }

  async close(): Promise<void> {
    await this.consumer.stop();
    await this.producer.close();
  }
}
