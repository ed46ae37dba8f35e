// The `exporters` section: flowagg's own, for what every exporter kind shares (Antrea's sections say what
// each one exports and where; this says where it runs).
import { z } from 'zod';

export const exportersSection = z
  .strictObject({
    threads: z
      .union([z.literal('auto'), z.boolean()])
      .default('auto')
      .describe("Each enabled exporter on a worker thread of its own, reading flows.processed through the main thread's log: `auto` is on from four cores (below, the threads' crossing costs more CPU than they take off the main thread), `false` runs every exporter in the main thread."),
  })
  .prefault({});
