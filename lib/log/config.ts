// The `log` configuration section: which backend, and its settings. The embedded backend's settings are
// here; the Kafka backend's are in kafka/config.ts (owned with the Kafka backend).
import { z } from 'zod';
import { byteSize, duration } from '../config/types.js';
import { kafkaConfigSchema } from './kafka/config.js';
import { topicsSchema } from './topics.js';

const fsyncSchema = z.strictObject({
  /**
   * always: a produce resolves only once its batch is fdatasync'ed (group commit keeps this fast).
   * interval: a produce resolves once written to the OS; fdatasync runs `interval` after a write, so a
   * machine crash (not a process crash) may lose that much.
   */
  policy: z.enum(['always', 'interval']).default('always'),
  interval: duration.default(1000),
});

export const embeddedLogConfigSchema = z.strictObject({
  dir: z.string().min(1).default('./data/log'),
  fsync: fsyncSchema.prefault({}),
  /** A partition's active segment rolls when the next batch would take it past this size. */
  segmentBytes: byteSize.pipe(z.number().int().min(4096, 'segmentBytes below 4096 makes a segment per batch')).default(256 * 2 ** 20),
  /** Defaults for topics created without their own retention. A closed segment is deleted when either is exceeded. */
  retention: z
    .strictObject({
      /** null: no size limit. */
      bytes: byteSize.nullable().default(null),
      /** null: no age limit. Default 7 days, as Kafka. */
      age: duration.nullable().default(7 * 24 * 3_600_000),
    })
    .prefault({}),
  /** A tombstone of a compacted topic is kept this long after its timestamp, so that readers see the delete. */
  tombstoneRetention: duration.default(24 * 3_600_000),
  /** How often retention and compaction run. */
  maintenanceInterval: duration.default(60_000),
  /** Bytes of log between two entries of the sparse offset and time indexes. */
  indexInterval: byteSize.default(4096),
  /** Bytes a consumer reads from a segment at a time. */
  readChunk: byteSize.pipe(z.number().int().min(4096)).default(2 ** 20),
});

export const logConfigSchema = z
  .strictObject({
    backend: z.enum(['embedded', 'kafka']).default('embedded'),
    embedded: embeddedLogConfigSchema.prefault({}),
    kafka: kafkaConfigSchema.optional(),
    topics: topicsSchema,
  })
  .refine((c) => c.backend !== 'kafka' || c.kafka !== undefined, { message: 'backend kafka needs the log.kafka section (at least brokers)', path: ['kafka'] });

export type EmbeddedLogConfig = z.output<typeof embeddedLogConfigSchema>;
export type EmbeddedLogConfigInput = z.input<typeof embeddedLogConfigSchema>;
export type LogConfig = z.output<typeof logConfigSchema>;
export type LogConfigInput = z.input<typeof logConfigSchema>;
