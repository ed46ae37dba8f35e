// Token buckets per key (a source address), for work that a sender can ask for but that is not needed to
// handle its own input: publishing its templates to the other replicas, logging its errors, asking
// Kubernetes to review the token it presents to the API. Each key may spend `burst` at once and
// `perSecond` on average, and all keys together `totalPerSecond`, so that one sender cannot use up
// another's budget. At most `maxKeys` keys are remembered (least recently used
// forgotten, which gives that key a full bucket again: the total bound still holds).

import { LruMap } from './lru-map.js';

export interface RateBudgetLimits {
  readonly perSecond: number;
  readonly burst: number;
  readonly totalPerSecond: number;
  readonly maxKeys?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateBudget {
  readonly #limits: RateBudgetLimits;
  readonly #now: () => number;
  readonly #buckets = new LruMap<string, Bucket>();
  readonly #total: Bucket;

  constructor(limits: RateBudgetLimits, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
    this.#total = { tokens: limits.totalPerSecond, at: now() };
  }

  /** How many of `wanted` units `key` may spend now (0..wanted); they are taken. */
  take(key: string, wanted: number): number {
    const now = this.#now();
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.#limits.burst, at: now };
      if (this.#buckets.size >= (this.#limits.maxKeys ?? 65_536)) this.#buckets.shift();
    }
    this.#buckets.set(key, bucket);
    refill(bucket, now, this.#limits.perSecond, this.#limits.burst);
    refill(this.#total, now, this.#limits.totalPerSecond, this.#limits.totalPerSecond);
    const n = Math.max(0, Math.min(wanted, Math.floor(bucket.tokens), Math.floor(this.#total.tokens)));
    bucket.tokens -= n;
    this.#total.tokens -= n;
    return n;
  }
}

function refill(b: Bucket, now: number, perSecond: number, max: number): void {
  b.tokens = Math.min(max, b.tokens + ((now - b.at) / 1000) * perSecond);
  b.at = now;
}
