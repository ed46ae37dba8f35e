// Antrea's top-level `mode`: which records flows.processed holds. The processor writes them and the IPFIX
// exporter picks its template by them, so it sits below both.
import { z } from 'zod';
import { emptyIsDefault } from '../lib/config/empty.js';

export type Mode = 'Aggregate' | 'Proxy';

/** Antrea's `mode` (top level): which records the processor writes, and so which template the exporter sends. */
export const modeSchema = emptyIsDefault(
  z
    .string()
    .transform((v, ctx): Mode => {
      const mode = v.trim().toLowerCase();
      if (mode === 'aggregate') return 'Aggregate';
      if (mode === 'proxy') return 'Proxy';
      ctx.addIssue({ code: 'custom', message: `"${v}" is not a mode (Aggregate or Proxy)` });
      return z.NEVER;
    })
    .default('Aggregate')
    .meta({
      description: 'Aggregate (correlate the two halves of inter-Node flows) or Proxy (forward each record with enrichment): what the processor writes, and so the IPFIX exporter\'s template. A change while running is refused.',
      reload: 'refused',
      typeLabel: 'Aggregate | Proxy',
    }),
);
