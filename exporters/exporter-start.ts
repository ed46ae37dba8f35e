// The exporter's start, in the background: tried again with jittered backoff (lib/retry.ts) for as long
// as it takes, each failure reported to the destination's health, which logs the first. The runner's own
// start never waits for it; the partitions wait for it before their first delivery.
import { errorMessage } from '../lib/errors.js';
import { type BackoffPolicy, retry } from '../lib/retry.js';
import type { Logger } from '../lib/telemetry/logger.js';
import type { DestinationHealth } from './destination-health.js';
import type { Exporter } from './types.js';

export interface ExporterStart {
  /** Settles true once the exporter started, false when `signal` aborted first. */
  readonly done: Promise<boolean>;
  /** Resolves true once the exporter started, false as soon as `signal` aborts (a partition that stops). */
  started(signal: AbortSignal): Promise<boolean>;
}

export function startInBackground(exporter: Exporter, opts: { backoff: BackoffPolicy; signal: AbortSignal; health: DestinationHealth; logger: Logger }): ExporterStart {
  const { health, logger } = opts;
  const done = (async () => {
    const outcome = await retry(() => exporter.start(opts.signal), {
      policy: opts.backoff,
      signal: opts.signal,
      retriable: () => true,
      onRetry: (err, delayMs) => {
        health.failed('start', err);
        logger.debug({ err: errorMessage(err), retryInMs: delayMs }, 'the exporter could not start; retrying');
      },
    });
    if (outcome.kind !== 'done') return false;
    health.succeeded('start');
    logger.info('exporter started');
    return true;
  })();
  return {
    done,
    started(signal) {
      if (signal.aborted) return Promise.resolve(false);
      return new Promise((resolve) => {
        const onAbort = () => resolve(false);
        signal.addEventListener('abort', onAbort, { once: true });
        void done.then((ok) => {
          signal.removeEventListener('abort', onAbort);
          resolve(ok);
        });
      });
    },
  };
}
