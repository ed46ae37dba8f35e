// What every producer, consumer and admin of one Kafka log shares: the kafkajs client, one lazily
// connected kafkajs admin, and the layout of topics (producers place records themselves).
import type { Admin as KafkajsAdmin, Kafka } from 'kafkajs';
import { FlowaggError } from '../../errors.js';
import { LOG_CLOSED, LOG_UNKNOWN_TOPIC } from '../errors.js';
import { componentLogger } from '../../telemetry/logger.js';
import { createKafkaClient } from './client.js';
import type { KafkaConfig } from './config.js';
import { kafkaCall } from './errors.js';
import kafkajs from './kafkajs.js';
import { KafkaSockets } from './sockets.js';

export interface TopicLayout {
  readonly partitions: number;
  /** cleanup.policy includes compact: every record needs a key. */
  readonly compacted: boolean;
}

/** Partition counts change only when an operator adds partitions; a producer picks that up this fast. */
const PARTITION_COUNT_TTL_MS = 30_000;
/** After the connections are cut, what kafkajs still had in flight fails at once; this only bounds it. */
const AFTER_CUT_MS = 1000;

const logger = componentLogger('log.kafka');

/** Whether `work` settles within `ms`; the timer is cleared either way, so it holds nothing. */
function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => { timer = setTimeout(resolve, ms, false); });
  return Promise.race([work.then(() => true as const), late]).finally(() => clearTimeout(timer));
}

export class KafkaCluster {
  readonly kafka: Kafka;
  private adminClient: Promise<KafkajsAdmin> | undefined;
  private readonly layouts = new Map<string, TopicLayout & { at: number }>();
  private readonly closers = new Set<() => Promise<void>>();
  private readonly sockets = new KafkaSockets();
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(readonly config: KafkaConfig) {
    this.kafka = createKafkaClient(config, this.sockets.factory);
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

  /**
   * Closes every producer, consumer and the admin, waiting up to closeTimeout for the brokers to answer
   * what is in flight; then cuts whatever connection is still open, so that nothing of this log holds
   * the process (sockets.ts says why kafkajs may not let go by itself).
   */
  close(): Promise<void> {
    return (this.closing ??= this.closeOnce());
  }

  private async closeOnce(): Promise<void> {
    const closers = [...this.closers];
    this.closers.clear();
    const closing = (async () => {
      await Promise.allSettled(closers.map((close) => close()));
      this.closed = true;
      const admin = this.adminClient;
      this.adminClient = undefined;
      if (admin !== undefined) await admin.then((a) => a.disconnect()).catch(() => undefined);
    })();
    const closedInTime = await settlesWithin(closing, this.config.closeTimeout);
    // Already so if the closers finished; not yet if they were still waiting on a broker.
    this.closed = true;
    const cut = this.sockets.cut('the Kafka log is closed');
    if (!closedInTime || cut.length > 0) {
      logger.warn({ closeTimeoutMs: this.config.closeTimeout, closedInTime, cut }, `closing the Kafka log: ${cut.length} broker connections still open were cut`);
    }
    if (!closedInTime) await settlesWithin(closing, AFTER_CUT_MS);
  }
}
