// The one place every service that writes Avro to a topic asks how to frame its values (log.valueFormat):
// single-object needs nothing; confluent registers the schema under the topic's subject (<topic>-value,
// Confluent's TopicNameStrategy) and frames values with the id the registry gave it.
import type { LogConfig } from './config.js';
import { SchemaRegistryClient } from './schema-registry/client.js';

/** How an Avro value is framed on a topic: Avro's single-object encoding, or Confluent's wire format with the registry's id. */
export type AvroFraming = { readonly kind: 'single-object' } | { readonly kind: 'confluent'; readonly schemaId: number };

export function subjectOf(topic: string): string {
  return `${topic}-value`;
}

export async function topicValueFraming(log: Pick<LogConfig, 'valueFormat' | 'schemaRegistry'>, topic: string, schema: unknown): Promise<AvroFraming> {
  if (log.valueFormat === 'single-object') return { kind: 'single-object' };
  const client = new SchemaRegistryClient(log.schemaRegistry!);
  return { kind: 'confluent', schemaId: await client.register(subjectOf(topic), schema) };
}
