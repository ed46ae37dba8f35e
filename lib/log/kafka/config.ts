// The `log.kafka` configuration section: how to reach the brokers (TLS, SASL), how topics are created,
// and the client's timeouts. Everything is passed through to kafkajs by client.ts.
import { z } from 'zod';
import { duration } from '../../config/types.js';

/** "host:port,host:port" or a YAML list, so that FLOWAGG_CFG_LOG_KAFKA_BROKERS=a:9092,b:9092 works. */
const brokerList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (typeof v === 'string' ? v.split(',') : v).map((b) => b.trim()).filter((b) => b !== ''))
  .pipe(
    z
      .array(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'a broker is host:port'))
      .min(1, 'at least one broker (host:port) is needed'),
  );

const tlsSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** PEM file of the CA that signed the brokers' certificates; the system CAs when absent. */
  ca: z.string().optional(),
  /** PEM files of the client certificate and key, for brokers that require client authentication. */
  cert: z.string().optional(),
  key: z.string().optional(),
  rejectUnauthorized: z.boolean().default(true),
});

const saslSchema = z.strictObject({
  mechanism: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']),
  username: z.string().min(1),
  password: z.string(),
});

export const kafkaConfigSchema = z
  .strictObject({
    brokers: brokerList,
    clientId: z.string().min(1).default('flowagg'),
    ssl: tlsSchema.optional(),
    sasl: saslSchema.optional(),
    /** Replication factor of the topics flowagg creates; the broker's default.replication.factor when absent. */
    replicationFactor: z.number().int().min(1).optional(),
    compression: z.enum(['none', 'gzip', 'snappy']).default('none'),
    connectionTimeout: duration.default(3000),
    requestTimeout: duration.default(30_000),
    /** A consumer that sends no heartbeat for this long is dropped from its group. */
    sessionTimeout: duration.default(30_000),
    /** A transaction still open after this long is aborted by the broker. */
    transactionTimeout: duration.default(60_000),
  })
  .refine((c) => (c.ssl?.cert === undefined) === (c.ssl?.key === undefined), {
    message: 'ssl.cert and ssl.key go together',
    path: ['ssl'],
  });

export type KafkaConfig = z.output<typeof kafkaConfigSchema>;
export type KafkaConfigInput = z.input<typeof kafkaConfigSchema>;
