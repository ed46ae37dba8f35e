// flowagg's `supervision` section: how a service that fails at runtime is restarted in place, and when
// the process gives up on it (exit status 1, so that Kubernetes restarts the Pod; lib/service/supervisor.ts).
import { z } from 'zod';
import { duration } from '../config/types.js';
import type { SupervisionPolicy } from './supervisor.js';

export const supervisionSection = z
  .strictObject({
    maxRestarts: z.number().int().min(0).default(5).describe('Restarts of one service allowed within `window`; the failure after them ends the process with exit status 1.'),
    window: duration.pipe(z.number().min(1)).default(600_000).describe('The period over which a service\'s failures are counted.'),
    initialBackoff: duration.default(1000).describe('The wait before the first restart; each further restart within the window waits twice as long (with jitter), up to `maxBackoff`.'),
    maxBackoff: duration.default(30_000).describe('The longest wait before a restart.'),
  })
  .prefault({})
  .describe('How a service that fails after its start (a log consumer that died) is restarted in place, not ready meanwhile. Needs a restart.');

export type SupervisionConfig = z.output<typeof supervisionSection>;

export function supervisionPolicy(c: SupervisionConfig): SupervisionPolicy {
  return { backoff: { initialMs: c.initialBackoff, maxMs: Math.max(c.initialBackoff, c.maxBackoff) }, maxRestarts: c.maxRestarts, windowMs: c.window };
}
