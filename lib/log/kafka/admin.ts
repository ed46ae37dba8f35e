// The Kafka backend's admin: topics, offsets by position and time, groups with lag, and offset resets.
//
// A reset is written as a transactional offset commit (TxnOffsetCommit) by a producer whose id belongs
// to the group: that commits every partition's new offset atomically, with kafkajs's public API, without
// joining the group (kafkajs's own setOffsets joins the group and waits for a fetch). Kafka applies
// transactional offsets once the commit markers are written, so the reset waits until it reads them back.
//
// Topic creation is idempotent: services started together on a fresh broker (two processors and an
// exporter) each find the topics missing and create them; the broker creates each once and tells the others
// it exists, which kafkajs answers without waiting for leaders. So whoever created a topic, createTopics
// returns only once every topic it names has a leader for each partition and answers offset requests.
import kafkajs from './kafkajs.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ErrorContext, FlowaggError, errorMessage } from '../../errors.js';
import { LOG_GROUP_ACTIVE, LOG_INVALID_ARGUMENT, LOG_UNKNOWN_TOPIC } from '../errors.js';
import { resolveReset } from '../offset-reset.js';
import type {
  Admin,
  GroupDescription,
  GroupPartitionLag,
  OffsetResetSpec,
  PartitionOffsets,
  TopicConfig,
  TopicDescription,
  TopicPartitionOffset,
} from '../types.js';
import type { KafkaCluster } from './cluster.js';
import { KAFKA_BROKER, kafkaCall } from './errors.js';
import { KafkaTransactionalProducer } from './producer.js';
import { toOffset } from './records.js';

const RESET_VISIBLE_TIMEOUT_MS = 10_000;
/** How long a topic just created (by this client or another) may take to get its leaders. */
const TOPICS_READY_TIMEOUT_MS = 30_000;

const GROUP_STATES: Readonly<Record<string, GroupDescription['state']>> = {
  Empty: 'empty',
  Stable: 'stable',
  PreparingRebalance: 'rebalancing',
  CompletingRebalance: 'rebalancing',
  Dead: 'dead',
};

function topicConfigEntries(t: TopicConfig): { name: string; value: string }[] {
  const entries: { name: string; value: string }[] = [{ name: 'cleanup.policy', value: t.cleanupPolicy ?? 'delete' }];
  if (t.retentionMs !== undefined) entries.push({ name: 'retention.ms', value: String(t.retentionMs) });
  if (t.retentionBytes !== undefined) entries.push({ name: 'retention.bytes', value: String(t.retentionBytes) });
  if (t.segmentBytes !== undefined) entries.push({ name: 'segment.bytes', value: String(t.segmentBytes) });
  return entries;
}

const isInternal = (topic: string) => topic.startsWith('__');

export class KafkaAdmin implements Admin {
  constructor(private readonly cluster: KafkaCluster) {}

  private async topicNames(): Promise<string[]> {
    const admin = await this.cluster.admin();
    return kafkaCall('listing topics', {}, () => admin.listTopics());
  }

  async createTopics(topics: readonly TopicConfig[]): Promise<void> {
    for (const t of topics) {
      if (!Number.isInteger(t.partitions) || t.partitions < 1) {
        throw new FlowaggError(LOG_INVALID_ARGUMENT, `topic ${t.topic}: partitions must be a positive integer, got ${t.partitions}`, { context: { topic: t.topic } });
      }
    }
    const existing = new Set(await this.topicNames());
    const missing = topics.filter((t) => !existing.has(t.topic));
    if (missing.length > 0) {
      const admin = await this.cluster.admin();
      const replicationFactor = this.cluster.config.replicationFactor;
      // Resolves false when another client created them first (TOPIC_ALREADY_EXISTS): as good as created.
      await kafkaCall('creating topics', { topics: missing.map((t) => t.topic).join(',') }, () =>
        admin.createTopics({
          waitForLeaders: false,
          topics: missing.map((t) => ({
            topic: t.topic,
            numPartitions: t.partitions,
            replicationFactor: t.replicationFactor ?? replicationFactor ?? -1,
            configEntries: topicConfigEntries(t),
          })),
        }),
      );
      for (const t of missing) this.cluster.forgetTopic(t.topic);
    }
    await this.waitUntilUsable(topics.map((t) => t.topic));
  }

  /**
   * Until every topic has a leader for each partition in the brokers' metadata and then answers offset
   * requests: a broker publishes a new leader in its metadata a moment before it serves the partition.
   */
  private async waitUntilUsable(topics: readonly string[]): Promise<void> {
    const admin = await this.cluster.admin();
    const led = async () => {
      // Metadata of every topic, not cached: kafkajs caches what it reads of a named topic, leaderless or not.
      const described = (await admin.fetchTopicMetadata()).topics;
      return topics.every((name) => {
        const partitions = described.find((t) => t.name === name)?.partitions ?? [];
        return partitions.length > 0 && partitions.every((p) => p.partitionErrorCode === 0 && p.leader >= 0);
      });
    };
    const answering = async () => {
      for (const topic of topics) await this.fetchTopicOffsets(topic);
      return true;
    };
    await this.waitFor(`topics ${topics.join(', ')} with leaders`, TOPICS_READY_TIMEOUT_MS, { topics: topics.join(',') }, async () => (await led()) && (await answering()));
  }

  async listTopics(): Promise<TopicDescription[]> {
    const admin = await this.cluster.admin();
    const metadata = await kafkaCall('reading topic metadata', {}, () => admin.fetchTopicMetadata());
    const topics = metadata.topics.filter((t) => !isInternal(t.name));
    if (topics.length === 0) return [];
    const configs = await kafkaCall('reading topic configurations', {}, () =>
      admin.describeConfigs({
        includeSynonyms: false,
        resources: topics.map((t) => ({ type: kafkajs.ConfigResourceTypes.TOPIC, name: t.name, configNames: ['cleanup.policy'] })),
      }),
    );
    const policies = new Map(
      configs.resources.map((r) => [r.resourceName, r.configEntries.find((e) => e.configName === 'cleanup.policy')?.configValue ?? 'delete']),
    );
    return topics
      .map((t) => ({
        topic: t.name,
        partitions: t.partitions.length,
        cleanupPolicy: (policies.get(t.name) ?? 'delete').split(',').includes('compact') ? ('compact' as const) : ('delete' as const),
      }))
      .sort((a, b) => a.topic.localeCompare(b.topic));
  }

  private async checkTopic(topic: string): Promise<void> {
    if (!(await this.topicNames()).includes(topic)) {
      throw new FlowaggError(LOG_UNKNOWN_TOPIC, `topic ${topic} does not exist in Kafka`, { context: { topic } });
    }
  }

  async fetchTopicOffsets(topic: string): Promise<PartitionOffsets[]> {
    await this.checkTopic(topic);
    const admin = await this.cluster.admin();
    const offsets = await kafkaCall('reading topic offsets', { topic }, () => admin.fetchTopicOffsets(topic));
    return offsets
      .map((o) => ({ partition: o.partition, low: toOffset(o.low), high: toOffset(o.high) }))
      .sort((a, b) => a.partition - b.partition);
  }

  async fetchOffsetsByTimestamp(topic: string, timestamp: number): Promise<TopicPartitionOffset[]> {
    await this.checkTopic(topic);
    const admin = await this.cluster.admin();
    // kafkajs already answers the log end offset for a partition with no record at or after the time.
    const offsets = await kafkaCall('looking up offsets by time', { topic, timestamp }, () => admin.fetchTopicOffsetsByTimestamp(topic, timestamp));
    return offsets.map((o) => ({ topic, partition: o.partition, offset: toOffset(o.offset) })).sort((a, b) => a.partition - b.partition);
  }

  async listGroups(): Promise<GroupDescription[]> {
    const admin = await this.cluster.admin();
    const { groups } = await kafkaCall('listing consumer groups', {}, () => admin.listGroups());
    const consumerGroups = groups.filter((g) => g.protocolType === 'consumer' || g.protocolType === '').map((g) => g.groupId);
    if (consumerGroups.length === 0) return [];
    return (await this.describeGroups(consumerGroups)).sort((a, b) => a.groupId.localeCompare(b.groupId));
  }

  private async describeGroups(groupIds: string[]): Promise<GroupDescription[]> {
    const admin = await this.cluster.admin();
    const { groups } = await kafkaCall('describing consumer groups', { groups: groupIds.join(',') }, () => admin.describeGroups(groupIds));
    return groups.map((g) => ({ groupId: g.groupId, state: GROUP_STATES[g.state] ?? 'unknown', members: g.members.length }));
  }

  /** Committed offsets of the group, per topic and partition, for the topics it committed on. */
  private async committedOffsets(groupId: string): Promise<Map<string, Map<number, number | null>>> {
    const admin = await this.cluster.admin();
    const responses = await kafkaCall('reading committed offsets', { groupId }, () => admin.fetchOffsets({ groupId }));
    const committed = new Map<string, Map<number, number | null>>();
    for (const { topic, partitions } of responses) {
      committed.set(topic, new Map(partitions.map((p) => [p.partition, Number(p.offset) < 0 ? null : toOffset(p.offset)])));
    }
    return committed;
  }

  async fetchGroupLag(groupId: string): Promise<GroupPartitionLag[]> {
    const committed = await this.committedOffsets(groupId);
    const known = new Set(await this.topicNames());
    const lags: GroupPartitionLag[] = [];
    for (const [topic, partitions] of [...committed].sort(([a], [b]) => a.localeCompare(b))) {
      if (!known.has(topic)) continue;
      for (const { partition, low, high } of await this.fetchTopicOffsets(topic)) {
        const offset = partitions.get(partition) ?? null;
        lags.push({ topic, partition, committed: offset, high, lag: high - (offset ?? low) });
      }
    }
    return lags;
  }

  async resetGroupOffsets(groupId: string, topic: string, spec: OffsetResetSpec): Promise<TopicPartitionOffset[]> {
    const [group] = await this.describeGroups([groupId]);
    if (group !== undefined && group.members > 0) {
      throw new FlowaggError(
        LOG_GROUP_ACTIVE,
        `consumer group ${groupId} has ${group.members} active member(s) (state ${group.state}); stop its consumers before resetting its offsets`,
        { context: { groupId, topic, members: group.members } },
      );
    }
    const partitions = await this.fetchTopicOffsets(topic);
    const committed = (await this.committedOffsets(groupId)).get(topic) ?? new Map<number, number | null>();
    const byTime = 'to' in spec && spec.to === 'datetime' ? await this.fetchOffsetsByTimestamp(topic, spec.timestamp) : [];
    const targets = resolveReset(spec, partitions, (p) => committed.get(p) ?? null, (p) => byTime.find((o) => o.partition === p)?.offset);
    const offsets = targets.map(({ partition, offset }) => ({ topic, partition, offset }));
    await this.commitAsTransaction(groupId, offsets);
    await this.waitUntilCommitted(groupId, offsets);
    return offsets;
  }

  private async commitAsTransaction(groupId: string, offsets: TopicPartitionOffset[]): Promise<void> {
    const producer = new KafkaTransactionalProducer(this.cluster, `flowagg-offset-reset-${groupId}`);
    try {
      const txn = await producer.begin();
      await txn.sendOffsets(groupId, offsets);
      await txn.commit();
    } finally {
      await producer.close();
    }
  }

  private async waitUntilCommitted(groupId: string, offsets: TopicPartitionOffset[]): Promise<void> {
    await this.waitFor(`the reset offsets of group ${groupId}`, RESET_VISIBLE_TIMEOUT_MS, { groupId }, async () => {
      const committed = (await this.committedOffsets(groupId)).get(offsets[0]?.topic ?? '');
      return offsets.every((o) => committed?.get(o.partition) === o.offset);
    });
  }

  /** Polls `check` (an error counts as not yet) until it holds; after `timeoutMs`, a retriable KAFKA_BROKER error naming `what`. */
  private async waitFor(what: string, timeoutMs: number, context: ErrorContext, check: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let lastError: unknown;
    for (;;) {
      try {
        if (await check()) return;
      } catch (err) {
        lastError = err;
      }
      if (Date.now() > deadline) {
        const why = lastError === undefined ? '' : ` (last error: ${errorMessage(lastError)})`;
        throw new FlowaggError(KAFKA_BROKER, `Kafka did not show ${what} within ${timeoutMs / 1000}s${why}`, { context, retriable: true, cause: lastError });
      }
      await sleep(50);
    }
  }
}
