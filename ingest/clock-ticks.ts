// Ingest's clock in the log: every `intervalMs`, one clock tick (schemas/clock-tick.ts) per flows.raw
// partition, through the produce queue, so that each lands after the records received before it. The
// processor's partitions then have a receive clock that moves while no record comes: their flows expire
// from what the log holds, and a replay expires them at the same points. Each replica of ingest ticks
// every partition; the processor keeps the latest time.
import type { Clock } from '../lib/clock.js';
import { clockTick } from '../schemas/clock-tick.js';
import type { ProduceQueue } from './produce-queue.js';

/** Starts ticking; the function returned stops it. */
export function startClockTicks(queue: ProduceQueue, partitions: number, intervalMs: number, clock: Clock): () => void {
  if (intervalMs <= 0 || partitions <= 0) return () => {};
  return clock.every(intervalMs, () => {
    const t = clock.now();
    queue.enqueue(Array.from({ length: partitions }, (_, partition) => clockTick(partition, t)));
  });
}
