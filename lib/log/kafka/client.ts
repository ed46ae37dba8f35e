// Builds the kafkajs client from the `log.kafka` section: TLS files read once, SASL passed through,
// the Java-compatible partitioner, snappy registered, and kafkajs's own logging sent to pino at warn.
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { CompressionTypes, ISocketFactory, Kafka, KafkaConfig as KafkajsConfig, SASLOptions } from 'kafkajs';
import SnappyCodec from 'kafkajs-snappy';
import kafkajs from './kafkajs.js';
import { FlowaggError } from '../../errors.js';
import { componentLogger } from '../../telemetry/logger.js';
import type { KafkaConfig } from './config.js';
import { KAFKA_CONFIG } from './errors.js';

kafkajs.CompressionCodecs[kafkajs.CompressionTypes.Snappy] = SnappyCodec;

/** Java's murmur2 placement (the producers place keyed records themselves with lib/log/partitioner.ts, which agrees). */
export const createPartitioner = kafkajs.Partitioners.DefaultPartitioner;

export const COMPRESSION: Readonly<Record<KafkaConfig['compression'], CompressionTypes>> = {
  none: kafkajs.CompressionTypes.None,
  gzip: kafkajs.CompressionTypes.GZIP,
  snappy: kafkajs.CompressionTypes.Snappy,
};

const logger = componentLogger('log.kafka');

function readPem(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new FlowaggError(KAFKA_CONFIG, `cannot read the Kafka ${what} file ${path}: ${(err as Error).message}`, {
      context: { path },
      cause: err,
    });
  }
}

function tlsOptions(ssl: KafkaConfig['ssl']): ConnectionOptions | undefined {
  if (ssl === undefined || !ssl.enabled) return undefined;
  return {
    rejectUnauthorized: ssl.rejectUnauthorized,
    ...(ssl.ca === undefined ? {} : { ca: [readPem(ssl.ca, 'TLS CA')] }),
    ...(ssl.cert === undefined ? {} : { cert: readPem(ssl.cert, 'TLS client certificate') }),
    ...(ssl.key === undefined ? {} : { key: readPem(ssl.key, 'TLS client key') }),
  };
}

function saslOptions(sasl: KafkaConfig['sasl']): SASLOptions | undefined {
  if (sasl === undefined) return undefined;
  const { username, password } = sasl;
  switch (sasl.mechanism) {
    case 'plain':
      return { mechanism: 'plain', username, password };
    case 'scram-sha-256':
      return { mechanism: 'scram-sha-256', username, password };
    case 'scram-sha-512':
      return { mechanism: 'scram-sha-512', username, password };
  }
}

/**
 * kafkajs logs every error response and every retry as an error, although it retries them; what it gives
 * up on reaches the caller as a FlowaggError. Those go to debug, rebalances to info, the rest to warn.
 */
function kafkajsLogLevel(namespace: string, message: string, fields: Record<string, unknown>): 'debug' | 'info' | 'warn' {
  if (namespace === 'Connection' || 'retryCount' in fields) return 'debug';
  if (message.startsWith('The group is rebalancing')) return 'info';
  // The producers bound their retries on purpose, so that a send to unreachable brokers fails instead of hanging.
  if (message.startsWith('Limiting retries for the idempotent producer')) return 'debug';
  return 'warn';
}

export function kafkajsConfig(config: KafkaConfig, socketFactory?: ISocketFactory): KafkajsConfig {
  const ssl = tlsOptions(config.ssl);
  const sasl = saslOptions(config.sasl);
  return {
    brokers: [...config.brokers],
    clientId: config.clientId,
    connectionTimeout: config.connectionTimeout,
    requestTimeout: config.requestTimeout,
    ...(ssl === undefined ? {} : { ssl }),
    ...(sasl === undefined ? {} : { sasl }),
    ...(socketFactory === undefined ? {} : { socketFactory }),
    retry: { initialRetryTime: 100, maxRetryTime: 5000, retries: 8 },
    logLevel: kafkajs.logLevel.WARN,
    logCreator: () => ({ namespace, label, log }) => {
      const { message, ...fields } = log;
      logger[kafkajsLogLevel(namespace, message, fields)]({ kafkajs: namespace, kafkajsLevel: label, ...fields }, message);
    },
  };
}

export function createKafkaClient(config: KafkaConfig, socketFactory: ISocketFactory): Kafka {
  return new kafkajs.Kafka(kafkajsConfig(config, socketFactory));
}
