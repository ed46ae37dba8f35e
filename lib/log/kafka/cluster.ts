// What every producer, consumer and admin of one Kafka log shares: the kafkajs client, one lazily
// connected kafkajs admin, and the layout of topics (producers place records themselves).
import type { Admin as KafkajsAdmin, Kafka } from 'kafkajs';
import { FlowaggError } from '../../errors.js';
import { LOG_CLOSED, LOG_UNKNOWN_TOPIC } from '../errors.js';
import { createKafkaClient } from './client.js';
import { type KafkaConfig } from './config.js';
import { kafkaCall } from './errors.js';
import kafkajs from './kafkajs.js';

export interface TopicLayout {
  readonly partitions: number;
  /** cleanup.policy includes compact: every record needs a key. */
  readonly compacted: boolean;
}

/** Partition counts change only when an operator adds partitions; a producer picks that up this fast. */
const PARTITION_COUNT_TTL_MS = 30_000;

export class KafkaCluster {
  readonly kafka: Kafka;
  private adminClient: Promise<KafkajsAdmin> | undefined;
  private readonly layouts = new Map<string, TopicLayout & { at: number }>();
  private readonly closers = new Set<() => Promise<void>>();
  private closed = false;

  constructor(readonly config: KafkaConfig) {
    this.kafka = createKafkaClient(config);
  }

  checkOpen(what: string): void {
    if (this.closed) throw new FlowaggError(LOG_CLOSED, `${what}: the Kafka log is closed`);
  }

  /** Registers something to close with the log (producers, consumers); returns its unregister function. */
  track(close: () => Promise<void>): () => void {
    this.closers.add(close);
    return () => this.closers.delete(close);
  }

  admin(): Promise<KafkajsAdmin> {
    this.checkOpen('admin');
    if (this.adminClient === undefined) {
      const admin = this.kafka.admin();
      this.adminClient = kafkaCall('connecting the Kafka admin client', {}, () => admin.connect()).then(
        () => admin,
        (err: unknown) => {
          this.adminClient = undefined;
          throw err;
        },
      );
    }
    return this.adminClient;
  }

  /** Partition count and cleanup policy of a topic, cached for PARTITION_COUNT_TTL_MS. */
  async topicLayout(topic: string): Promise<TopicLayout> {
    const cached = this.layouts.get(topic);
    if (cached !== undefined && Date.now() - cached.at < PARTITION_COUNT_TTL_MS) return cached;
    // Metadata of every topic: asking for one that does not exist makes kafkajs retry for seconds.
    const admin = await this.admin();
    const metadata = await kafkaCall('reading topic metadata', { topic }, () => admin.fetchTopicMetadata());
    const partitions = metadata.topics.find((t) => t.name === topic)?.partitions.length ?? 0;
    if (partitions === 0) throw new FlowaggError(LOG_UNKNOWN_TOPIC, `topic ${topic} does not exist in Kafka`, { context: { topic } });
    const configs = await kafkaCall('reading the topic configuration', { topic }, () =>
      admin.describeConfigs({ includeSynonyms: false, resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name: topic, configNames: ['cleanup.policy'] }] }),
    );
    const policy = configs.resources[0]?.configEntries.find((e) => e.configName === 'cleanup.policy')?.configValue ?? 'delete';
    const layout = { partitions, compacted: policy.split(',').includes('compact'), at: Date.now() };
    this.layouts.set(topic, layout);
    return layout;
  }

  forgetTopic(topic: string): void {
    this.layouts.delete(topic);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    const closers = [...this.closers];
    this.closers.clear();
    await Promise.allSettled(closers.map((close) => close()));
    this.closed = true;
    const admin = this.adminClient;
    this.adminClient = undefined;
    if (admin !== undefined) await admin.then((a) => a.disconnect()).catch(() => undefined);
  }
}
