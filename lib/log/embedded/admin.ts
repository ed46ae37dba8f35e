// Admin operations of the embedded log: topics, offsets by time, groups, lag and offset resets.
import { FlowaggError } from '../../errors.js';
import { LOG_GROUP_ACTIVE, LOG_INVALID_ARGUMENT } from '../errors.js';
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
import type { GroupCoordinator } from './group-coordinator.js';
import type { OffsetsStore } from './offsets-store.js';
import { type TopicRegistry, isInternalTopic } from './topics.js';

export interface AdminDeps {
  readonly topics: TopicRegistry;
  readonly groups: GroupCoordinator;
  readonly offsets: OffsetsStore;
}

function checkSpec(spec: OffsetResetSpec): void {
  const ok =
    'shiftBy' in spec
      ? Number.isSafeInteger(spec.shiftBy)
      : spec.to === 'earliest' || spec.to === 'latest' || (spec.to === 'datetime' && Number.isFinite(spec.timestamp)) || (spec.to === 'offset' && Number.isSafeInteger(spec.offset));
  if (!ok) throw new FlowaggError(LOG_INVALID_ARGUMENT, `not an offset reset: ${JSON.stringify(spec)}`);
}

export class EmbeddedAdmin implements Admin {
  constructor(private readonly deps: AdminDeps) {}

  async createTopics(topics: readonly TopicConfig[]): Promise<void> {
    await this.deps.topics.create(topics);
  }

  async listTopics(): Promise<TopicDescription[]> {
    return this.deps.topics.list();
  }

  async fetchTopicOffsets(topic: string): Promise<PartitionOffsets[]> {
    return this.deps.topics.get(topic).partitions.map((p) => ({ partition: p.partition, low: p.low, high: p.high }));
  }

  async fetchOffsetsByTimestamp(topic: string, timestamp: number): Promise<TopicPartitionOffset[]> {
    const partitions = this.deps.topics.get(topic).partitions;
    return Promise.all(partitions.map(async (p) => ({ topic, partition: p.partition, offset: await p.offsetForTimestamp(timestamp) })));
  }

  async listGroups(): Promise<GroupDescription[]> {
    const ids = new Set([...this.deps.groups.groupIds(), ...this.deps.offsets.groupIds()]);
    return [...ids].sort().map((id) => this.deps.groups.describe(id));
  }

  async fetchGroupLag(groupId: string): Promise<GroupPartitionLag[]> {
    const keys = new Set<string>();
    const rows: GroupPartitionLag[] = [];
    const add = (topic: string, partition: number) => {
      const key = `${partition}\u0000${topic}`;
      if (keys.has(key) || !this.deps.topics.has(topic)) return;
      keys.add(key);
      const log = this.deps.topics.partition(topic, partition);
      const committed = this.deps.offsets.committed(groupId, topic, partition);
      rows.push({ topic, partition, committed, high: log.high, lag: Math.max(0, log.high - (committed ?? log.low)) });
    };
    for (const o of this.deps.offsets.ofGroup(groupId)) add(o.topic, o.partition);
    for (const topic of this.deps.groups.subscribedTopics(groupId)) {
      for (const p of this.deps.topics.get(topic).partitions) add(topic, p.partition);
    }
    return rows.filter((r) => !isInternalTopic(r.topic)).sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  }

  async resetGroupOffsets(groupId: string, topic: string, spec: OffsetResetSpec): Promise<TopicPartitionOffset[]> {
    checkSpec(spec);
    const partitions = this.deps.topics.get(topic).partitions;
    const members = this.deps.groups.members(groupId);
    if (members > 0) {
      throw new FlowaggError(LOG_GROUP_ACTIVE, `group "${groupId}" has ${members} active member(s); stop its consumers before resetting its offsets`, {
        context: { groupId, members },
      });
    }
    const byTime = new Map<number, number>();
    if ('to' in spec && spec.to === 'datetime') {
      for (const log of partitions) byTime.set(log.partition, await log.offsetForTimestamp(spec.timestamp));
    }
    const targets = resolveReset(
      spec,
      partitions.map((log) => ({ partition: log.partition, low: log.low, high: log.high })),
      (partition) => this.deps.offsets.committed(groupId, topic, partition),
      (partition) => byTime.get(partition),
    );
    const offsets = targets.map((t) => ({ topic, partition: t.partition, offset: t.offset }));
    await this.deps.offsets.commit(groupId, offsets);
    return offsets;
  }
}
