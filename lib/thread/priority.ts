// A worker thread's CPU priority below its owner's. Ingest loses what it cannot take in time (a UDP
// socket's buffer overflows, an Agent's link backs up and it drops), while a stage reading the log loses
// nothing by waiting: so when the cores are short, the threads that read the log yield to the one that
// fills it, and catch up once the burst is over. Linux keeps a nice value per thread, so setpriority() on
// the calling thread leaves the process's other threads alone; elsewhere it would renice the whole
// process, ingest with it, so nothing changes there.
import { getPriority, setPriority } from 'node:os';
import { errorMessage } from '../errors.js';

/** The highest nice value: the lowest priority. */
const LOWEST = 19;

export type PriorityChange =
  | { readonly changed: true; readonly niceness: number }
  | { readonly changed: false; readonly reason: string };

/** Raises the calling thread's nice value by `by` (at most to 19). */
export function lowerThreadPriority(by: number, platform: NodeJS.Platform = process.platform, set: (niceness: number) => void = setPriority): PriorityChange {
  if (by === 0) return { changed: false, reason: 'niceness 0' };
  if (platform !== 'linux') return { changed: false, reason: `nice values are per process on ${platform}` };
  const niceness = Math.min(LOWEST, getPriority() + by);
  try {
    set(niceness);
  } catch (e) {
    // A sandbox may forbid setpriority(): the thread then runs as before, which costs speed, not correctness.
    return { changed: false, reason: `setpriority failed: ${errorMessage(e)}` };
  }
  return { changed: true, niceness };
}
