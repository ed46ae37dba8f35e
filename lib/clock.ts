// How a service reads the time and runs its periodic work (sweeps, checks, ticks, commits): the system's
// clock by default. A test passes one it moves itself (lib/testing/manual-clock.ts), so that it never waits
// in real time for a service's timer.
export interface Clock {
  now(): number;
  /** Runs `run` every `ms` until the returned function is called; the timer never keeps the process alive. */
  every(ms: number, run: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  every(ms, run) {
    const timer = setInterval(run, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};
