// Ingest's clock in the log: every `intervalMs`, one clock tick (schemas/clock-tick.ts) per flows.raw
// partition, through the produce queue, so that each lands after the records received before it. The
// processor's partitions then have a receive clock that moves while no record comes: their flows expire
// from what the log holds, and a replay expires them at the same points. Each replica of ingest ticks
// every partition; the processor keeps the latest time.
import { clockTick } from '../schemas/clock-tick.js';
import { type ProduceQueue } from './produce-queue.js';

export interface ClockTicks {
  stop(): void;
}

export function startClockTicks(queue: ProduceQueue, partitions: number, intervalMs: number, now: () => number): ClockTicks {
  if (intervalMs <= 0 || partitions <= 0) return { stop: () => {} };
  const timer = setInterval(() => {
    const t = now();
    queue.enqueue(Array.from({ length: partitions }, (_, partition) => clockTick(partition, t)));
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
