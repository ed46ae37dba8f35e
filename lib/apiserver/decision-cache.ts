// Kubernetes' answers to TokenReview and SubjectAccessReview, kept for a short time as Antrea's
// delegating authenticator and authorizer keep them (10 s, allowed and denied alike), so that a client
// polling the API costs Kubernetes one review per 10 s. Callers asking the same question while it is
// under review share that review. At most `maxEntries` answers are kept; since every entry lives
// equally long, the oldest is the next to expire and goes first. A failed review is not kept: the next
// request asks again.
import { LruMap } from '../lru-map.js';

export interface DecisionCacheOptions {
  readonly ttlMs: number;
  readonly maxEntries: number;
  readonly now?: () => number;
}

interface Entry<T> {
  readonly answer: Promise<T>;
  /** Infinity while the review is under way. */
  expires: number;
}

export type Lookup<T> = { readonly kind: 'cached'; readonly answer: Promise<T> } | { readonly kind: 'miss' };

export class DecisionCache<T> {
  readonly #entries = new LruMap<string, Entry<T>>();
  readonly #opts: DecisionCacheOptions;
  readonly #now: () => number;

  constructor(opts: DecisionCacheOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The answer kept or under review for `key`. */
  lookup(key: string): Lookup<T> {
    const entry = this.#entries.get(key);
    if (entry === undefined) return { kind: 'miss' };
    if (entry.expires > this.#now()) return { kind: 'cached', answer: entry.answer };
    this.#entries.delete(key);
    return { kind: 'miss' };
  }

  /** Keeps the answer `review` gives (shared with lookups meanwhile), unless it fails. */
  remember(key: string, review: Promise<T>): Promise<T> {
    this.#evict();
    const entry: Entry<T> = { answer: review, expires: Infinity };
    this.#entries.set(key, entry);
    review.then(
      () => (entry.expires = this.#now() + this.#opts.ttlMs),
      () => {
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
      },
    );
    return review;
  }

  /** Drops what expired from the oldest end, and the oldest beyond the bound. */
  #evict(): void {
    const now = this.#now();
    for (let oldest = this.#entries.oldest(); oldest !== undefined && oldest[1].expires <= now; oldest = this.#entries.oldest()) this.#entries.shift();
    while (this.#entries.size >= this.#opts.maxEntries) this.#entries.shift();
  }
}
