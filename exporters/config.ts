// The `exporters` section: flowagg's own, for what every exporter kind shares (Antrea's sections say what
// each one exports and where; this says where it runs).
import { z } from 'zod';
import { niceness } from '../lib/config/types.js';

export const exportersSection = z
  .strictObject({
    threads: z
      .union([z.literal('auto'), z.boolean()])
      .default('auto')
      .describe("Each enabled exporter on a worker thread of its own, reading flows.processed through the main thread's log: `auto` is on from two cores (measured on two, with the processor on its thread: 38 % more records taken, 18 % more through, at 7 % more CPU per record), `false` runs every exporter in the main thread."),
    niceness: niceness.describe("How much lower the CPU priority of the exporters' threads is than the main thread's, in Linux nice steps, in a process that runs ingest too, as processor.niceness: they read the log, so they wait for ingest when the cores are short. 0 gives them the same priority."),
  })
  .prefault({});
