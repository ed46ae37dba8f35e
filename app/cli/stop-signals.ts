// How a long-running command learns it must stop: the first SIGINT or SIGTERM (or an abort, in tests).
// The listeners stay until the command has finished stopping, because Ctrl-C under `npm start` delivers
// SIGINT twice (the terminal signals the whole process group, and npm forwards its own copy), and a
// signal that finds no listener kills the process in the middle of its drain.
import type { Logger } from '../../lib/telemetry/logger.js';

export interface StopSignals {
  /** Settles with what asked to stop. */
  readonly requested: Promise<NodeJS.Signals | 'abort'>;
  /** Removes the listeners: call once stopping is done. */
  dispose(): void;
}

export function listenForStop(logger: Logger, abort?: AbortSignal): StopSignals {
  let resolve!: (why: NodeJS.Signals | 'abort') => void;
  const requested = new Promise<NodeJS.Signals | 'abort'>((r) => (resolve = r));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) logger.info({ signal }, 'already stopping');
    stopping = true;
    resolve(signal);
  };
  const onAbort = () => resolve('abort');
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  abort?.addEventListener('abort', onAbort, { once: true });
  return {
    requested,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      abort?.removeEventListener('abort', onAbort);
    },
  };
}
