// The `log` configuration section: which backend, and its settings. The embedded backend's settings are
// here; the Kafka backend's are in kafka/config.ts (owned with the Kafka backend).
import { z } from 'zod';
import { byteSize, duration } from '../config/types.js';
import { kafkaConfigSchema } from './kafka/config.js';
import { schemaRegistrySection, valueFormatSchema } from './schema-registry/config.js';
import { topicsSchema } from './topics.js';

const fsyncSchema = z.strictObject({
  policy: z.enum(['always', 'interval']).default('always').describe('always: a produce resolves only once its batch is fdatasync\'ed (group commit keeps this fast). interval: a produce resolves once written to the OS; fdatasync runs `interval` after a write, so a machine crash (not a process crash) may lose that much.'),
  interval: duration.default(1000).describe('With policy interval: how long after a write fdatasync runs.'),
});

export const embeddedLogConfigSchema = z.strictObject({
  dir: z.string().min(1).default('./data/log').describe('The directory of the embedded log (topics, segments, offsets, the lock file).'),
  fsync: fsyncSchema.prefault({}),
  segmentBytes: byteSize.pipe(z.number().int().min(4096, 'segmentBytes below 4096 makes a segment per batch')).default(256 * 2 ** 20).describe('A partition\'s active segment rolls when the next batch would take it past this size.'),
  retention: z
    .strictObject({
      bytes: byteSize.nullable().default(null).describe('null: no size limit.'),
      age: duration.nullable().default(7 * 24 * 3_600_000).describe('null: no age limit. Default 7 days, as Kafka.'),
    })
    .prefault({})
    .describe('Defaults for topics created without their own retention. A closed segment is deleted when either is exceeded.'),
  tombstoneRetention: duration.default(24 * 3_600_000).describe('A tombstone of a compacted topic is kept this long after its timestamp, so that readers see the delete.'),
  minCleanableDirtyRatio: z.number().min(0).max(1).default(0.5).describe('A compacted partition is cleaned once the bytes written since its last cleaning are this share of its closed segments (or a tombstone it kept has expired), as Kafka\'s min.cleanable.dirty.ratio: lower cleans more often at more CPU, higher leaves more superseded records to read at a restore.'),
  cleanerMapKeys: z.number().int().min(1).default(1_000_000).describe('The keys a compaction pass maps at most (about 100 bytes of memory each), as Kafka bounds its cleaner\'s map: a pass covers the dirty segments whose keys fit, and the next pass takes the rest.'),
  maintenanceInterval: duration.default(60_000).describe('How often retention and compaction run.'),
  indexInterval: byteSize.default(4096).describe('Bytes of log between two entries of the sparse offset and time indexes.'),
  readChunk: byteSize.pipe(z.number().int().min(4096)).default(2 ** 20).describe('Bytes a consumer reads from a segment at a time.'),
});

export const logConfigSchema = z
  .strictObject({
    backend: z.enum(['embedded', 'kafka']).default('embedded').describe('embedded: a file-backed log in this process, for one machine; kafka: Apache Kafka, to scale out.'),
    embedded: embeddedLogConfigSchema.prefault({}),
    kafka: kafkaConfigSchema.optional(),
    topics: topicsSchema,
    valueFormat: valueFormatSchema,
    schemaRegistry: schemaRegistrySection,
  })
  .refine((c) => c.backend !== 'kafka' || c.kafka !== undefined, { message: 'backend kafka needs the log.kafka section (at least brokers)', path: ['kafka'] })
  .refine((c) => c.valueFormat !== 'confluent' || c.schemaRegistry !== undefined, {
    message: 'valueFormat confluent needs log.schemaRegistry.url: the registry that gives each schema its id',
    path: ['schemaRegistry'],
  });

export type EmbeddedLogConfig = z.output<typeof embeddedLogConfigSchema>;
export type EmbeddedLogConfigInput = z.input<typeof embeddedLogConfigSchema>;
export type LogConfig = z.output<typeof logConfigSchema>;
export type LogConfigInput = z.input<typeof logConfigSchema>;
