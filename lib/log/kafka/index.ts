// The Kafka backend of the message log (lib/log/types.ts) over kafkajs. See docs/kafka.md.
import type { Admin, Consumer, ConsumerConfig, MessageLog, Producer, Reader, ReaderConfig, TransactionalProducer } from '../types.js';
import { KafkaAdmin } from './admin.js';
import { KafkaCluster } from './cluster.js';
import { kafkaConfigSchema, type KafkaConfig, type KafkaConfigInput } from './config.js';
import { KafkaConsumer } from './consumer.js';
import { KafkaProducer, KafkaTransactionalProducer } from './producer.js';
import { KafkaReader } from './reader.js';

class KafkaLog implements MessageLog {
  readonly backend = 'kafka';
  private readonly cluster: KafkaCluster;

  constructor(config: KafkaConfig) {
    this.cluster = new KafkaCluster(config);
  }

  producer(): Producer {
    this.cluster.checkOpen('producer');
    return new KafkaProducer(this.cluster);
  }

  transactionalProducer(transactionalId: string): TransactionalProducer {
    this.cluster.checkOpen('transactionalProducer');
    return new KafkaTransactionalProducer(this.cluster, transactionalId);
  }

  consumer(config: ConsumerConfig): Consumer {
    this.cluster.checkOpen('consumer');
    return new KafkaConsumer(this.cluster, config);
  }

  reader(config: ReaderConfig = {}): Reader {
    this.cluster.checkOpen('reader');
    return new KafkaReader(this.cluster, config);
  }

  admin(): Admin {
    this.cluster.checkOpen('admin');
    return new KafkaAdmin(this.cluster);
  }

  close(): Promise<void> {
    return this.cluster.close();
  }
}

/**
 * Opens the Kafka log. Nothing connects until first used, so this does not fail when the brokers are
 * down; the first operation does, with FLOWAGG_ERR_LOG_KAFKA_UNREACHABLE.
 */
export async function openKafkaLog(config: KafkaConfig | KafkaConfigInput): Promise<MessageLog> {
  return new KafkaLog(kafkaConfigSchema.parse(config));
}
