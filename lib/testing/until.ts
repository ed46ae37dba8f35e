// The one way tests wait for something: poll a check until it holds, and on timeout say what was awaited
// (and the check's last error), so that a slow machine gives a reason rather than a hang or a bare failure.
import { setTimeout as sleep } from 'node:timers/promises';

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
