// How values are framed on the topics flowagg writes Avro to (`log.valueFormat`), and the Confluent-
// compatible schema registry the `confluent` framing registers schemas with (`log.schemaRegistry`).
import { z } from 'zod';
import { duration } from '../../config/types.js';

export const valueFormatSchema = z
  .enum(['single-object', 'confluent'])
  .default('single-object')
  .describe(
    'How Avro values on flows.raw (and the other Avro topics) are framed. single-object: the Avro single-object encoding (C3 01, schema fingerprint), which Apache Avro and fastavro read without a registry. confluent: 00 and the schema id of log.schemaRegistry, for Kafka Connect\'s AvroConverter and other registry-based consumers.',
  );

export const schemaRegistrySection = z
  .strictObject({
    url: z.url({ protocol: /^https?$/, error: (i) => `${JSON.stringify(i.input)} is not an http:// or https:// URL` }).describe('The registry, e.g. http://schema-registry:8081 (Confluent Schema Registry, Karapace, Apicurio in its ccompat API).'),
    basicAuth: z
      .strictObject({
        username: z.string().min(1).describe('Basic-auth user of the registry.'),
        password: z.string().describe('Basic-auth password; set it from the environment (FLOWAGG_CFG_LOG_SCHEMAREGISTRY_BASICAUTH_PASSWORD) rather than in the file.'),
      })
      .optional(),
    tls: z
      .strictObject({
        ca: z.string().optional().describe('PEM file of the CA that signed the registry\'s certificate; the system CAs when absent.'),
        cert: z.string().optional().describe('PEM file of a client certificate, for a registry that requires one.'),
        key: z.string().optional().describe('PEM file of the client certificate\'s key.'),
        rejectUnauthorized: z.boolean().default(true).describe('false accepts a registry whose certificate does not verify: for tests only.'),
      })
      .refine((t) => (t.cert === undefined) === (t.key === undefined), { message: 'tls.cert and tls.key go together' })
      .optional(),
    timeout: duration.default(10_000).describe('How long one request to the registry may take.'),
  })
  .optional();

export type ValueFormat = z.output<typeof valueFormatSchema>;
export type SchemaRegistryConfig = NonNullable<z.output<typeof schemaRegistrySection>>;
