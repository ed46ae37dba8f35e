// Where an offset reset puts each partition of a topic, for both backends, as kafka-consumer-groups
// --reset-offsets does: targets are clamped to what the log still holds, [low, high].
import type { OffsetResetSpec, PartitionOffsets } from './types.js';

export interface PartitionTarget {
  readonly partition: number;
  readonly offset: number;
}

/**
 * @param committed the group's committed offset of a partition, null when it never committed there
 *   (a shift then counts from the first offset, where such a group starts reading)
 * @param byTime for `to: 'datetime'`, the first offset at or after the time (undefined: the log end)
 */
export function resolveReset(
  spec: OffsetResetSpec,
  partitions: readonly PartitionOffsets[],
  committed: (partition: number) => number | null,
  byTime: (partition: number) => number | undefined = () => undefined,
): PartitionTarget[] {
  return partitions.map(({ partition, low, high }) => {
    const clamp = (o: number) => Math.min(high, Math.max(low, o));
    if ('shiftBy' in spec) return { partition, offset: clamp((committed(partition) ?? low) + spec.shiftBy) };
    switch (spec.to) {
      case 'earliest':
        return { partition, offset: low };
      case 'latest':
        return { partition, offset: high };
      case 'datetime':
        return { partition, offset: clamp(byTime(partition) ?? high) };
      case 'offset':
        return { partition, offset: clamp(spec.offset) };
    }
  });
}
