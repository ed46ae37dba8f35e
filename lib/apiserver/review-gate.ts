// Bounds the reviews the API server asks of Kubernetes, so that a flood of invented tokens (each one new
// to the cache) cannot become a flood of TokenReviews: at most `perSecond` a second from one client
// address with bursts of `burst`, `totalPerSecond` from all of them, and `maxInFlight` waiting for an
// answer at once. A request beyond the budget is answered 429 without asking.
import { RateBudget } from '../rate-budget.js';
import { apiMetrics } from './metrics.js';

export interface ReviewLimits {
  readonly perSecond: number;
  readonly burst: number;
  readonly totalPerSecond: number;
  readonly maxInFlight: number;
  /** Client addresses whose budget is remembered (the least recent forgotten). */
  readonly maxSources: number;
}

/** Enough for every antctl and Prometheus in a cluster (each cached 10 s), far from what would load an API server. */
export const REVIEW_LIMITS: ReviewLimits = { perSecond: 5, burst: 10, totalPerSecond: 50, maxInFlight: 16, maxSources: 4096 };

export type Gated<T> = { readonly kind: 'sent'; readonly answer: Promise<T> } | { readonly kind: 'refused'; readonly message: string };

export class ReviewGate {
  readonly #budget: RateBudget;
  readonly #limits: ReviewLimits;
  #inFlight = 0;

  constructor(limits: ReviewLimits = REVIEW_LIMITS, now: () => number = Date.now) {
    this.#limits = limits;
    this.#budget = new RateBudget({ perSecond: limits.perSecond, burst: limits.burst, totalPerSecond: limits.totalPerSecond, maxKeys: limits.maxSources }, now);
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Sends `review` if `source` and everyone together have budget left. */
  send<T>(source: string, review: () => Promise<T>): Gated<T> {
    if (this.#inFlight >= this.#limits.maxInFlight) return refuse('in_flight', `${this.#inFlight} reviews are waiting for Kubernetes, the most allowed`);
    if (this.#budget.take(source, 1) === 0) return refuse('rate', `too many new tokens to review (at most ${this.#limits.perSecond}/s from one address, ${this.#limits.totalPerSecond}/s in all)`);
    this.#inFlight++;
    const answer = review().finally(() => this.#inFlight--);
    return { kind: 'sent', answer };
  }
}

function refuse<T>(reason: 'in_flight' | 'rate', message: string): Gated<T> {
  apiMetrics.reviewsRefused.inc({ reason });
  return { kind: 'refused', message: `${message}: try again in a second` };
}
