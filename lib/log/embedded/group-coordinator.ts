// Consumer groups inside one process. A group's members share its topics' partitions (Kafka's range
// assignor, per topic, members in join order). Rebalances are serialised per group and incremental:
// a member first gives up the partitions it loses (finishing the batch in flight, then onRevoke), and
// only then do the new owners take them (onAssign), so a partition is never consumed by two members.
import { componentLogger } from '../../telemetry/logger.js';
import type { GroupDescription, TopicPartition } from '../types.js';
import type { TopicRegistry } from './topics.js';

const logger = componentLogger('log.embedded');

export interface GroupMember {
  readonly memberId: string;
  readonly topics: readonly string[];
  owned(): TopicPartition[];
  /** Stops consuming the partitions and runs onRevoke; resolves when done. */
  revoke(partitions: readonly TopicPartition[]): Promise<void>;
  /** Runs onAssign and starts consuming the partitions. */
  assign(partitions: readonly TopicPartition[]): Promise<void>;
}

const tpKey = (tp: TopicPartition): string => `${tp.partition}\u0000${tp.topic}`;

function minus(a: readonly TopicPartition[], b: readonly TopicPartition[]): TopicPartition[] {
  const keys = new Set(b.map(tpKey));
  return a.filter((tp) => !keys.has(tpKey(tp)));
}

/** Kafka's RangeAssignor: for each topic, consecutive ranges of partitions to the members subscribed to it. */
export function rangeAssign(members: readonly GroupMember[], partitionsOf: (topic: string) => number): Map<GroupMember, TopicPartition[]> {
  const result = new Map(members.map((m) => [m, [] as TopicPartition[]]));
  const topics = [...new Set(members.flatMap((m) => m.topics))].sort();
  for (const topic of topics) {
    const subscribers = members.filter((m) => m.topics.includes(topic));
    const n = partitionsOf(topic);
    const per = Math.floor(n / subscribers.length);
    const extra = n % subscribers.length;
    let next = 0;
    subscribers.forEach((m, i) => {
      const count = per + (i < extra ? 1 : 0);
      for (let k = 0; k < count; k++) result.get(m)!.push({ topic, partition: next++ });
    });
  }
  return result;
}

class Group {
  readonly members: GroupMember[] = [];
  rebalancing = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly topics: TopicRegistry) {}

  private serialised(step: () => Promise<void>): Promise<void> {
    const run = this.chain.then(step);
    this.chain = run.catch(() => {});
    return run;
  }

  join(member: GroupMember): Promise<void> {
    return this.serialised(async () => {
      this.members.push(member);
      await this.rebalance();
    });
  }

  leave(member: GroupMember): Promise<void> {
    return this.serialised(async () => {
      await member.revoke(member.owned());
      this.members.splice(this.members.indexOf(member), 1);
      await this.rebalance();
    });
  }

  private async rebalance(): Promise<void> {
    this.rebalancing = true;
    try {
      const target = rangeAssign(this.members, (topic) => this.topics.get(topic).partitions.length);
      await Promise.all(this.members.map((m) => m.revoke(minus(m.owned(), target.get(m)!)).catch((err: unknown) => logger.error({ err, member: m.memberId }, 'revoke failed'))));
      await Promise.all(this.members.map((m) => m.assign(minus(target.get(m)!, m.owned())).catch((err: unknown) => logger.error({ err, member: m.memberId }, 'assign failed'))));
    } finally {
      this.rebalancing = false;
    }
  }
}

export class GroupCoordinator {
  private readonly groups = new Map<string, Group>();
  private nextMember = 0;

  constructor(private readonly topics: TopicRegistry) {}

  newMemberId(groupId: string): string {
    return `${groupId}-${String(this.nextMember++).padStart(6, '0')}`;
  }

  private group(groupId: string): Group {
    let g = this.groups.get(groupId);
    if (g === undefined) this.groups.set(groupId, (g = new Group(this.topics)));
    return g;
  }

  join(groupId: string, member: GroupMember): Promise<void> {
    return this.group(groupId).join(member);
  }

  leave(groupId: string, member: GroupMember): Promise<void> {
    return this.group(groupId).leave(member);
  }

  members(groupId: string): number {
    return this.groups.get(groupId)?.members.length ?? 0;
  }

  describe(groupId: string): GroupDescription {
    const g = this.groups.get(groupId);
    const members = g?.members.length ?? 0;
    const state = members === 0 ? 'empty' : g!.rebalancing ? 'rebalancing' : 'stable';
    return { groupId, state, members };
  }

  groupIds(): string[] {
    return [...this.groups.keys()];
  }

  /** Subscribed topics of the group's live members. */
  subscribedTopics(groupId: string): string[] {
    return [...new Set(this.groups.get(groupId)?.members.flatMap((m) => m.topics) ?? [])];
  }
}
