// Structured JSON logs (pino) on stderr, so stdout stays free for command output such as `flowagg decode`.
// Every component logs through a child logger that names it.
import { pino, type Logger } from 'pino';

export type { Logger };

const level = process.env.FLOWAGG_LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'warn' : 'info');

export const rootLogger: Logger = pino({ level, base: { service: 'flowagg' } }, pino.destination(2));

export function componentLogger(component: string, bindings: Record<string, unknown> = {}): Logger {
  return rootLogger.child({ component, ...bindings });
}

/**
 * Logs at most `burst` messages per `windowMs` for one key, and counts what it suppressed, so that a
 * flood of malformed packets cannot flood the log (akvorado logs 3 per 30 s the same way).
 */
export function sampledLogger(logger: Logger, burst = 3, windowMs = 30_000) {
  const windows = new Map<string, { start: number; count: number; suppressed: number }>();
  return (key: string, fields: Record<string, unknown>, msg: string): void => {
    const now = Date.now();
    let w = windows.get(key);
    if (w === undefined || now - w.start >= windowMs) {
      if (w !== undefined && w.suppressed > 0) logger.warn({ key, suppressed: w.suppressed }, 'suppressed repeated messages');
      if (windows.size > 10_000) windows.clear();
      w = { start: now, count: 0, suppressed: 0 };
      windows.set(key, w);
    }
    if (w.count < burst) {
      w.count++;
      logger.warn(fields, msg);
    } else {
      w.suppressed++;
    }
  };
}
