// The delta counters of the Antrea agent template, whose sums the simulator reports: what the processor's
// per-Node aggregation (…FromSourceNode, …FromDestinationNode) adds up, so that a test can compare.
import { agentFieldNames } from './antrea/workload.js';

export const DELTA_COUNTERS = ['packetDeltaCount', 'octetDeltaCount', 'reversePacketDeltaCount', 'reverseOctetDeltaCount'] as const;
export type DeltaCounter = (typeof DELTA_COUNTERS)[number];

/** Positions of the counters in the template's values (the same for both families). */
export const DELTA_INDEXES: readonly number[] = DELTA_COUNTERS.map((name) => agentFieldNames(4).indexOf(name));

/** Records, and the sum of each delta counter over them. */
export type Sums = { records: number } & Record<DeltaCounter, number>;

export function emptySums(): Sums {
  return { records: 0, packetDeltaCount: 0, octetDeltaCount: 0, reversePacketDeltaCount: 0, reverseOctetDeltaCount: 0 };
}
