// The `log.kafka` configuration section: how to reach the brokers (TLS, SASL), how topics are created,
// and the client's timeouts. Everything is passed through to kafkajs by client.ts.
import { z } from 'zod';
import { duration } from '../../config/types.js';

/** "host:port,host:port" or a YAML list, so that FLOWAGG_CFG_LOG_KAFKA_BROKERS=a:9092,b:9092 works. */
const brokerList = z
  .union([z.string(), z.array(z.string())])
  .meta({ typeLabel: 'host:port list (a YAML list or comma-separated)' })
  .transform((v) => (typeof v === 'string' ? v.split(',') : v).map((b) => b.trim()).filter((b) => b !== ''))
  .pipe(
    z
      .array(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'a broker is host:port'))
      .min(1, 'at least one broker (host:port) is needed'),
  );

const tlsSchema = z.strictObject({
  enabled: z.boolean().default(true).describe('TLS to the brokers.'),
  ca: z.string().optional().describe('PEM file of the CA that signed the brokers\' certificates; the system CAs when absent.'),
  cert: z.string().optional().describe('PEM files of the client certificate and key, for brokers that require client authentication.'),
  key: z.string().optional().describe('PEM file of the client key (with cert).'),
  rejectUnauthorized: z.boolean().default(true).describe('false accepts brokers whose certificate does not verify: for tests only.'),
});

const saslSchema = z.strictObject({
  mechanism: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']).describe('The SASL mechanism the brokers accept.'),
  username: z.string().min(1).describe('SASL user.'),
  password: z.string().describe('SASL password; set it from the environment (FLOWAGG_CFG_LOG_KAFKA_SASL_PASSWORD) rather than in the file.'),
});

export const kafkaConfigSchema = z
  .strictObject({
    brokers: brokerList.describe('Bootstrap brokers, host:port.'),
    clientId: z.string().min(1).default('flowagg').describe('The Kafka client id, in broker logs and quotas.'),
    ssl: tlsSchema.optional(),
    sasl: saslSchema.optional(),
    replicationFactor: z.number().int().min(1).optional().describe('Replication factor of the topics flowagg creates; the broker\'s default.replication.factor when absent.'),
    compression: z.enum(['none', 'gzip', 'snappy']).default('none').describe('Compression of produced record batches.'),
    connectionTimeout: duration.default(3000).describe('How long connecting to a broker may take.'),
    requestTimeout: duration.default(30_000).describe('How long a broker may take to answer a request.'),
    closeTimeout: duration.default(5000).describe('How long closing waits for the brokers to answer what is in flight before it cuts the connections (a service stopping, on SIGTERM).'),
    sessionTimeout: duration.default(30_000).describe('A consumer that sends no heartbeat for this long is dropped from its group.'),
    transactionTimeout: duration.default(60_000).describe('A transaction still open after this long is aborted by the broker.'),
  })
  .refine((c) => (c.ssl?.cert === undefined) === (c.ssl?.key === undefined), {
    message: 'ssl.cert and ssl.key go together',
    path: ['ssl'],
  });

export type KafkaConfig = z.output<typeof kafkaConfigSchema>;
export type KafkaConfigInput = z.input<typeof kafkaConfigSchema>;
