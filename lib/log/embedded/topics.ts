// The topics of an embedded log: their configuration in `topics.json` (replaced atomically), and one open
// PartitionLog per partition. Internal topics (`__consumer_offsets`, `__transaction_state`) live here too
// but are hidden from listings and refused to producers.
import fs from 'node:fs';
import { join } from 'node:path';
import { FlowaggError } from '../../errors.js';
import { LOG_INVALID_ARGUMENT, LOG_PARTITION_OUT_OF_RANGE, LOG_UNKNOWN_TOPIC } from '../errors.js';
import type { TopicConfig, TopicDescription } from '../types.js';
import { writeFileAtomic } from './fs-util.js';
import { PartitionLog, type PartitionLogOptions } from './partition-log.js';

export interface StoredTopic {
  readonly topic: string;
  readonly partitions: number;
  readonly cleanupPolicy: 'delete' | 'compact';
  /** null: no limit. */
  readonly retentionMs: number | null;
  readonly retentionBytes: number | null;
  readonly segmentBytes: number;
}

export interface Topic {
  readonly config: StoredTopic;
  readonly partitions: readonly PartitionLog[];
}

export interface TopicDefaults extends Omit<PartitionLogOptions, 'segmentBytes'> {
  readonly segmentBytes: number;
  readonly retentionMs: number | null;
  readonly retentionBytes: number | null;
}

const TOPIC_NAME = /^[A-Za-z0-9._-]{1,200}$/;
export const isInternalTopic = (topic: string): boolean => topic.startsWith('__');

export class TopicRegistry {
  private readonly topics = new Map<string, Topic>();
  private creating: Promise<void> = Promise.resolve();

  private constructor(
    private readonly dir: string,
    private readonly defaults: TopicDefaults,
  ) {}

  private get file(): string {
    return join(this.dir, 'topics.json');
  }

  static async open(dir: string, defaults: TopicDefaults): Promise<TopicRegistry> {
    const registry = new TopicRegistry(dir, defaults);
    const stored = fs.existsSync(registry.file) ? (JSON.parse(fs.readFileSync(registry.file, 'utf8')) as StoredTopic[]) : [];
    for (const config of stored) await registry.openTopic(config);
    return registry;
  }

  private async openTopic(config: StoredTopic): Promise<void> {
    const partitions: PartitionLog[] = [];
    for (let p = 0; p < config.partitions; p++) {
      // The log's own state is always fsync'ed: a transaction's commit point must be durable whatever the policy.
      const fsync = isInternalTopic(config.topic) ? { ...this.defaults.fsync, policy: 'always' as const } : this.defaults.fsync;
      partitions.push(await PartitionLog.open(this.dir, config.topic, p, { ...this.defaults, fsync, segmentBytes: config.segmentBytes }));
    }
    this.topics.set(config.topic, { config, partitions });
  }

  /** Creates the topics that do not exist; serialised so that concurrent calls never write topics.json at once. */
  create(configs: readonly TopicConfig[], internal = false): Promise<void> {
    for (const c of configs) validateTopicConfig(c, internal);
    const run = this.creating.then(async () => {
      const fresh = configs.filter((c) => !this.topics.has(c.topic));
      if (fresh.length === 0) return;
      const stored = fresh.map((c): StoredTopic => ({
        topic: c.topic,
        partitions: c.partitions,
        cleanupPolicy: c.cleanupPolicy ?? 'delete',
        retentionMs: c.retentionMs ?? this.defaults.retentionMs,
        retentionBytes: c.retentionBytes ?? this.defaults.retentionBytes,
        segmentBytes: c.segmentBytes ?? this.defaults.segmentBytes,
      }));
      writeFileAtomic(this.file, Buffer.from(JSON.stringify([...[...this.topics.values()].map((t) => t.config), ...stored], null, 2)));
      for (const config of stored) await this.openTopic(config);
    });
    this.creating = run.catch(() => {});
    return run;
  }

  has(topic: string): boolean {
    return this.topics.has(topic);
  }

  get(topic: string): Topic {
    const t = this.topics.get(topic);
    if (t === undefined) throw new FlowaggError(LOG_UNKNOWN_TOPIC, `unknown topic "${topic}"`, { context: { topic } });
    return t;
  }

  partition(topic: string, partition: number): PartitionLog {
    const t = this.get(topic);
    const log = Number.isInteger(partition) ? t.partitions[partition] : undefined;
    if (log === undefined) {
      throw new FlowaggError(LOG_PARTITION_OUT_OF_RANGE, `topic "${topic}" has partitions 0..${t.partitions.length - 1}, not ${partition}`, {
        context: { topic, partition },
      });
    }
    return log;
  }

  all(): Topic[] {
    return [...this.topics.values()];
  }

  list(): TopicDescription[] {
    return this.all()
      .filter((t) => !isInternalTopic(t.config.topic))
      .map((t) => ({ topic: t.config.topic, partitions: t.config.partitions, cleanupPolicy: t.config.cleanupPolicy }));
  }

  async close(): Promise<void> {
    await Promise.all(this.all().flatMap((t) => t.partitions.map((p) => p.close())));
  }
}

function validateTopicConfig(c: TopicConfig, internal: boolean): void {
  const bad = (what: string) => new FlowaggError(LOG_INVALID_ARGUMENT, `topic "${c.topic}": ${what}`, { context: { topic: c.topic } });
  if (typeof c.topic !== 'string' || !TOPIC_NAME.test(c.topic)) throw bad('a topic name is 1 to 200 of [A-Za-z0-9._-]');
  if (isInternalTopic(c.topic) !== internal) throw bad('names starting with "__" are reserved for the log itself');
  if (!Number.isInteger(c.partitions) || c.partitions < 1 || c.partitions > 10_000) throw bad(`partitions must be an integer in 1..10000, not ${c.partitions}`);
  if (c.segmentBytes !== undefined && (!Number.isInteger(c.segmentBytes) || c.segmentBytes < 4096)) throw bad('segmentBytes must be at least 4096');
}
