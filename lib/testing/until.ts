// The one way tests wait for something: poll a check until it holds, and on timeout say what was awaited
// (and the check's last error), so that a slow machine gives a reason rather than a hang or a bare failure.
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';

export interface UntilOptions {
  /** Default 30 s: generous, since a check that holds returns at once. */
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

type Checked<T> = T | false | null | undefined;

/**
 * Resolves with the first value of `check` that is neither false, null nor undefined. A check that throws
 * counts as not yet. Rejects after `timeoutMs` with "timed out after … waiting for <what>".
 */
export async function until<T>(what: string, check: () => Checked<T> | Promise<Checked<T>>, opts: UntilOptions = {}): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 10 } = opts;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== false && value !== null && value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await sleep(intervalMs);
  }
}

/**
 * Resolves with the first value of `probe` that `holds` accepts (any value, false and 0 included). On
 * timeout the error also shows the last value probed, which is usually what tells a failure's cause.
 */
export async function untilHolds<T>(what: string, probe: () => T | Promise<T>, holds: (value: T) => boolean, opts: UntilOptions = {}): Promise<T> {
  let last: { value: T } | undefined;
  try {
    const found = await until(what, async () => {
      last = { value: await probe() };
      return holds(last.value) && last;
    }, opts);
    return found.value;
  } catch (err) {
    throw new Error(`${(err as Error).message}; last value: ${last === undefined ? 'none' : inspect(last.value, { depth: 4, breakLength: Infinity })}`);
  }
}
