// Consumer groups' committed offsets, kept durably in the internal compacted partition
// `__consumer_offsets-0` (Kafka's design): one record per group, topic and partition, the latest wins.
// The in-memory map is updated only once the record is acknowledged, so a reader never sees an offset
// a crash could take back.
import type { TopicPartitionOffset } from '../types.js';
import { appendInternal, readAllInternal } from './internal-records.js';
import type { PartitionLog } from './partition-log.js';

export const OFFSETS_TOPIC = '__consumer_offsets';

const keyOf = (groupId: string, topic: string, partition: number): Buffer => Buffer.from(JSON.stringify([groupId, topic, partition]));
const tpKey = (topic: string, partition: number): string => `${partition}\u0000${topic}`;

export class OffsetsStore {
  private readonly groups = new Map<string, Map<string, TopicPartitionOffset>>();

  private constructor(private readonly log: PartitionLog) {}

  static async load(log: PartitionLog): Promise<OffsetsStore> {
    const store = new OffsetsStore(log);
    await readAllInternal(log, (r) => {
      const [groupId, topic, partition] = JSON.parse(r.key!.toString()) as [string, string, number];
      if (r.value === null) store.groups.get(groupId)?.delete(tpKey(topic, partition));
      else store.set(groupId, { topic, partition, offset: Number(r.value.readBigInt64BE(0)) });
    });
    return store;
  }

  private set(groupId: string, o: TopicPartitionOffset): void {
    let group = this.groups.get(groupId);
    if (group === undefined) this.groups.set(groupId, (group = new Map()));
    group.set(tpKey(o.topic, o.partition), { topic: o.topic, partition: o.partition, offset: o.offset });
  }

  async commit(groupId: string, offsets: readonly TopicPartitionOffset[]): Promise<void> {
    await appendInternal(
      this.log,
      offsets.map((o) => {
        const value = Buffer.alloc(8);
        value.writeBigInt64BE(BigInt(o.offset));
        return { key: keyOf(groupId, o.topic, o.partition), value };
      }),
    );
    for (const o of offsets) this.set(groupId, o);
  }

  committed(groupId: string, topic: string, partition: number): number | null {
    return this.groups.get(groupId)?.get(tpKey(topic, partition))?.offset ?? null;
  }

  /** Every committed offset of the group. */
  ofGroup(groupId: string): TopicPartitionOffset[] {
    return [...(this.groups.get(groupId)?.values() ?? [])];
  }

  groupIds(): string[] {
    return [...this.groups.keys()];
  }
}
