// Opens the configured message log. The Kafka backend is imported only when configured, so that the
// embedded path (`flowagg run`) never loads kafkajs.
import type { LogConfig } from './config.js';
import { openEmbeddedLog } from './embedded/index.js';
import type { MessageLog } from './types.js';

export type * from './types.js';

export async function openLog(config: LogConfig): Promise<MessageLog> {
  if (config.backend === 'embedded') return openEmbeddedLog(config.embedded);
  const { openKafkaLog } = await import('./kafka/index.js');
  return openKafkaLog(config.kafka!);
}
