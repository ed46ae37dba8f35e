// The target rate: a token bucket filled at `rate` tokens a second up to `burst`, one token per record sent.
// Time is passed in, so the bucket is tested without a clock.

export class TokenBucket {
  #tokens: number;
  #at: number;

  constructor(
    readonly rate: number,
    readonly burst: number,
    now: number,
  ) {
    this.#tokens = burst;
    this.#at = now;
  }

  /** Whole tokens available at `now` (ms). */
  available(now: number): number {
    if (now > this.#at) {
      this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) * this.rate) / 1000);
      this.#at = now;
    }
    return Math.floor(this.#tokens);
  }

  take(n: number): void {
    this.#tokens -= n;
  }

  /** Milliseconds from the last `available` call until one whole token is there. */
  msUntilToken(): number {
    return this.#tokens >= 1 ? 0 : Math.ceil(((1 - this.#tokens) * 1000) / this.rate);
  }
}
